//! Compile errors of `#[derive(Intent)]`: each file under `derive/ui/` is one theme, with the expected
//! messages in its `.stderr`. Regenerate with `TRYBUILD=overwrite` and review the diff.

#[test]
fn derive_reports_spanned_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("derive/ui/*.rs");
}
