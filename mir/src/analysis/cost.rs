//! What a function costs to run: its instructions (and branches) weighted by the trips of
//! the loops around them, the most a loop can make (a `break` only shortens it). A measure
//! to choose between two lowerings of one program (a loop kept, or unrolled with its exits
//! predicated), not a prediction of a target's cycles. A counted loop (one exit, its count
//! known) is taken to run its count with no test, as a loop instruction with a counter
//! register does (the PICA200's `loop`): its counter's test and branch cost nothing per
//! trip (its increment still runs).

use crate::analysis::regions::Regions;
use crate::analysis::trips::{max_trips, trip_count};
use crate::func::{Function, Structure, Terminator};
use crate::hash::HashMap;

/// Trips assumed for a loop whose count is not known at compile time.
pub const UNKNOWN_TRIPS: usize = 16;

/// The most steps one run of `f` executes, with every loop making the most trips it can (at
/// most `max`), and whether some loop's count is unknown (taken as [`UNKNOWN_TRIPS`]).
pub fn worst_steps(f: &Function, max: u32) -> (usize, bool) {
    let regions = Regions::new(f);
    let mut trips: HashMap<crate::func::BlockId, usize> = HashMap::default();
    let mut unknown = false;
    // Per trip, what a counted loop does not run: its test's comparison and branch.
    let mut free: HashMap<crate::func::BlockId, usize> = HashMap::default();
    for c in &regions.constructs {
        if matches!(c.structure, Structure::Loop { .. }) {
            let n = match (trip_count(f, c.header, max), max_trips(f, c.header, max)) {
                (Some((n, _)), _) => {
                    free.insert(c.header, 2);
                    n as usize
                }
                (None, Some(n)) => n as usize,
                (None, None) => {
                    unknown = true;
                    UNKNOWN_TRIPS
                }
            };
            trips.insert(c.header, n.max(1));
        }
    }
    let mut steps = 0usize;
    let mut per_trip: HashMap<crate::func::BlockId, (usize, usize)> = HashMap::default();
    for &b in f.layout.iter().filter(|&&b| regions.doms.reachable(b)) {
        let branch = usize::from(matches!(f.blocks[b].term, Terminator::Branch { .. }));
        let own = f.blocks[b].insts.len() + branch;
        // Charged to the innermost loop around it (its trips, and its parents'), or once.
        let mut c = regions.innermost(b, None);
        let mut weight = 1usize;
        let mut innermost = None;
        while let Some(x) = c {
            if let Some(&n) = trips.get(&x.header) {
                weight = weight.saturating_mul(n);
                innermost.get_or_insert(x.header);
            }
            c = regions.parent(&x);
        }
        match innermost {
            Some(h) => {
                let e = per_trip.entry(h).or_insert((0, weight));
                e.0 += own;
            }
            None => steps += own,
        }
    }
    for (h, (own, weight)) in per_trip {
        let own = own
            .saturating_sub(free.get(&h).copied().unwrap_or(0))
            .max(1);
        steps = steps.saturating_add(own.saturating_mul(weight));
    }
    (steps, unknown)
}
