//! `spv2retro serve`: the playground page and its JSON API, on 127.0.0.1 only.
//!
//! A small HTTP/1.1 server on the standard library: one request per connection
//! (`Connection: close`), bodies of at most [`MAX_BODY`] bytes, headers of at most
//! [`MAX_HEADERS`], a read and write timeout of [`IO_TIMEOUT`] per connection, at most
//! [`WORKERS`] requests handled at once (more wait in the listen queue), and each request's
//! work given [`WORK_TIMEOUT`] (a request that takes longer is answered 503; a panic is
//! answered 500). Nothing a request sends can stop the server.
//!
//! Routes: `GET /` (the page), `GET /app.js`, `GET /style.css` (served from the binary; no
//! CDN), `POST /api/compile`, `POST /api/run`, `POST /api/preview` (see [`api`]).

pub mod api;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The largest request body.
pub const MAX_BODY: usize = 256 * 1024;
/// The largest request head (request line and headers).
pub const MAX_HEADERS: usize = 16 * 1024;
/// How long a connection may take to send its whole request, and to read the answer: a
/// client that trickles bytes (one every few seconds) is cut off then, not served forever.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request's work may take.
pub const WORK_TIMEOUT: Duration = Duration::from_secs(20);
/// Requests handled at once.
pub const WORKERS: usize = 4;
/// Requests whose work may still be running, those given up on after [`WORK_TIMEOUT`]
/// included (their threads cannot be stopped): beyond it the server answers 503 at once,
/// so that slow requests cannot pile up work without bound.
pub const MAX_RUNNING: usize = 2 * WORKERS;

/// Work threads running now (see [`MAX_RUNNING`]).
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// A stream read with one deadline for the whole request: each read may take only what is
/// left of [`IO_TIMEOUT`].
struct Deadline<'a> {
    stream: &'a TcpStream,
    until: Instant,
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        (&*self.stream).read(buf)
    }
}

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// An HTTP answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The content type.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status,
            content_type,
            body: body.into(),
        }
    }

    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response::new(
            status,
            "application/json",
            serde_json::to_vec(value).unwrap_or_default(),
        )
    }

    fn error(status: u16, message: &str) -> Response {
        Response::json(status, &serde_json::json!({ "error": message }))
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// Answers one request (method, path, body): what the server does, without the sockets.
pub fn route(method: &str, path: &str, body: &[u8]) -> Response {
    let path = path.split('?').next().unwrap_or(path);
    match (method, path) {
        ("GET", "/" | "/index.html") => Response::new(200, "text/html; charset=utf-8", INDEX_HTML),
        ("GET", "/app.js") => Response::new(200, "text/javascript; charset=utf-8", APP_JS),
        ("GET", "/style.css") => Response::new(200, "text/css; charset=utf-8", STYLE_CSS),
        ("POST", "/api/compile" | "/api/run" | "/api/preview") => {
            let request: api::Request = match serde_json::from_slice(body) {
                Ok(r) => r,
                Err(e) => {
                    return Response::error(
                        400,
                        &format!("the request is not the JSON the API takes: {e}"),
                    );
                }
            };
            let answer = match path {
                "/api/compile" => api::compile(&request),
                "/api/run" => api::run(&request),
                _ => api::preview(&request),
            };
            Response::json(200, &answer)
        }
        (
            _,
            "/" | "/index.html" | "/app.js" | "/style.css" | "/api/compile" | "/api/run"
            | "/api/preview",
        ) => Response::error(405, "method not allowed"),
        _ => Response::error(404, "not found"),
    }
}

/// Reads one request from `stream`: method, path and body, or the answer to give instead.
fn read_request(stream: &TcpStream) -> Result<(String, String, Vec<u8>), Response> {
    let deadline = Deadline {
        stream,
        until: Instant::now() + IO_TIMEOUT,
    };
    let mut reader = BufReader::new(deadline.take((MAX_HEADERS + MAX_BODY + 1) as u64));
    let mut head = 0usize;
    let mut line = String::new();
    let timeout = |e: std::io::Error| {
        if matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ) {
            Response::error(408, "the request took too long to arrive")
        } else {
            Response::error(400, "the request could not be read")
        }
    };
    reader.read_line(&mut line).map_err(timeout)?;
    head += line.len();
    let mut parts = line.split_whitespace();
    let (Some(method), Some(path)) = (parts.next(), parts.next()) else {
        return Err(Response::error(400, "not an HTTP request"));
    };
    let (method, path) = (method.to_string(), path.to_string());
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        let n = reader.read_line(&mut h).map_err(timeout)?;
        head += n;
        if head > MAX_HEADERS {
            return Err(Response::error(431, "the request's headers are too large"));
        }
        if n == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value
                    .trim()
                    .parse()
                    .map_err(|_| Response::error(400, "a bad Content-Length"))?;
            }
        }
    }
    if length > MAX_BODY {
        return Err(Response::error(
            413,
            &format!("the request body is {length} bytes; the limit is {MAX_BODY}"),
        ));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).map_err(timeout)?;
    Ok((method, path, body))
}

fn write_response(mut stream: &TcpStream, r: &Response) {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&r.body);
    let _ = stream.flush();
}

/// Handles one connection: reads the request, does its work within [`WORK_TIMEOUT`] on a
/// thread of its own (so a panic or a slow compile answers an error, never stops the
/// server), writes the answer.
fn handle(stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let response = match read_request(&stream) {
        Err(r) => r,
        Ok(_) if RUNNING.fetch_add(1, Ordering::AcqRel) >= MAX_RUNNING => {
            RUNNING.fetch_sub(1, Ordering::AcqRel);
            Response::error(503, "the server is busy")
        }
        Ok((method, path, body)) => {
            let (tx, rx) = std::sync::mpsc::channel();
            let worker = std::thread::Builder::new()
                .name("spv2retro-request".into())
                .spawn(move || {
                    let r = std::panic::catch_unwind(|| route(&method, &path, &body));
                    RUNNING.fetch_sub(1, Ordering::AcqRel);
                    let _ = tx.send(r);
                });
            match worker {
                Err(_) => {
                    RUNNING.fetch_sub(1, Ordering::AcqRel);
                    Response::error(503, "the server is busy")
                }
                Ok(_) => match rx.recv_timeout(WORK_TIMEOUT) {
                    Ok(Ok(r)) => r,
                    Ok(Err(_)) => Response::error(500, "internal error (this is a bug)"),
                    Err(_) => Response::error(503, "the request took too long"),
                },
            }
        }
    };
    write_response(&stream, &response);
}

/// A listening server.
pub struct Server {
    listener: TcpListener,
}

impl Server {
    /// Listens on 127.0.0.1:`port` (0: a free port).
    pub fn bind(port: u16) -> std::io::Result<Server> {
        Ok(Server {
            listener: TcpListener::bind(("127.0.0.1", port))?,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Answers requests until the process ends, at most [`WORKERS`] at once.
    pub fn run(self) {
        let busy = Arc::new(AtomicUsize::new(0));
        for stream in self.listener.incoming() {
            let Ok(stream) = stream else { continue };
            // Wait for a free worker (the connection waits in its socket meanwhile).
            while busy.load(Ordering::Acquire) >= WORKERS {
                std::thread::sleep(Duration::from_millis(5));
            }
            busy.fetch_add(1, Ordering::AcqRel);
            let b = Arc::clone(&busy);
            let spawned = std::thread::Builder::new()
                .name("spv2retro-connection".into())
                .spawn(move || {
                    handle(stream);
                    b.fetch_sub(1, Ordering::AcqRel);
                });
            if spawned.is_err() {
                busy.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// `spv2retro serve --port PORT`: prints the address, then serves until stopped. The error
/// says why it cannot listen (`cannot listen on 127.0.0.1:PORT: …`).
pub fn serve(port: u16) -> Result<(), String> {
    let server =
        Server::bind(port).map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    println!("spv2retro playground: http://127.0.0.1:{}/", server.port());
    let _ = std::io::stdout().flush();
    server.run();
    Ok(())
}

/// The run's result as JSON (numbers that are not finite as strings, as the reflection
/// spells them).
pub fn outputs_json(o: &preview::Outputs) -> serde_json::Value {
    use serde_json::json;
    let list = |vs: &[preview::Value]| -> serde_json::Value {
        vs.iter()
            .map(|v| {
                json!({
                    "name": v.name,
                    "register": v.register,
                    "value": v.value.iter().map(|&f| machine::reflect::json_number(f)).collect::<Vec<_>>(),
                })
            })
            .collect()
    };
    json!({
        "inputs": list(&o.inputs),
        "outputs": list(&o.outputs),
        "discarded": o.discarded,
        "steps": o.steps,
        "emitted": o.emitted.iter().map(|e| json!({
            "vertex": e.vertex,
            "primitive": e.primitive,
            "winding": e.winding,
            "outputs": list(&e.outputs),
        })).collect::<Vec<_>>(),
    })
}

/// `WxH`.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}`: expected WxH, such as 256x256"))?;
    let w: u32 = w.parse().map_err(|_| format!("`{w}` is not a width"))?;
    let h: u32 = h.parse().map_err(|_| format!("`{h}` is not a height"))?;
    if w == 0 || h == 0 || w > 4096 || h > 4096 {
        return Err(format!("{w}x{h}: sizes are 1x1 to 4096x4096"));
    }
    Ok((w, h))
}
