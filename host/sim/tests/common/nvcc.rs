//! Comparing nvcc's PTX across checkouts: shared by `sim_cuda.rs` here and by
//! `host/checks/tests/sim_nvcc_cluster.rs` (included by path), which both check that PTX kept in
//! the repository is what nvcc emits for its source.

/// `text` with the hash in nvcc's internal-linkage names (`_INTERNAL_7c126bfe_8_async_cu_…`)
/// replaced by `########`: the hash is of the source file's path, not of what it compiles to.
pub fn without_path_hashes(text: &str) -> String {
    const MARK: &str = "_INTERNAL_";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        let (before, after) = rest.split_at(at + MARK.len());
        out.push_str(before);
        let hash_len = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hash_len == 8 && after.as_bytes().get(8) == Some(&b'_') {
            out.push_str("########");
            rest = &after[8..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn path_hashes_in_internal_names_are_ignored_and_nothing_else() {
    let here =
        ".global .b8 _ZN38_INTERNAL_7c126bfe_8_async_cu_9a24a6d74cuda3std3__45__cpo9iter_swapE[1];";
    let there =
        ".global .b8 _ZN38_INTERNAL_34ef0b3b_8_async_cu_9a24a6d74cuda3std3__45__cpo9iter_swapE[1];";
    assert_eq!(without_path_hashes(here), without_path_hashes(there));
    let other_file =
        ".global .b8 _ZN38_INTERNAL_34ef0b3b_8_other_cu_9a24a6d74cuda3std3__45__cpo9iter_swapE[1];";
    assert_ne!(without_path_hashes(here), without_path_hashes(other_file));
    assert_ne!(
        without_path_hashes("mov.u32 %r1, 1; // _INTERNAL_x"),
        without_path_hashes("mov.u32 %r1, 2; // _INTERNAL_x")
    );
}
