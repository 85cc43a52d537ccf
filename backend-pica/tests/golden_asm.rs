//! Every golden `.pica` assembles to picasso's `.shbin`, byte for byte.

use crate::common;

use backend_pica::shbin;

#[test]
fn golden_sources_assemble_to_picasso_bytes() {
    let mut failures = Vec::new();
    for name in common::programs() {
        let bin = common::assemble(&name);
        let bytes = shbin::write(&bin).expect("write");
        let expected = common::shbin(&name);
        if bytes != expected {
            failures.push(format!(
                "{name}: {}",
                common::describe_diff(&expected, &bytes)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn golden_shbins_read_and_write_back() {
    for name in common::programs() {
        let bytes = common::shbin(&name);
        let bin = shbin::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(shbin::write(&bin).unwrap(), bytes, "{name}");
        assert_eq!(bin, common::assemble(&name), "{name}");
    }
}
