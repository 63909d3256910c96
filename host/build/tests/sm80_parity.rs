//! Issue 29, item 2: the hardware block barrier's tokens are phase parities, waited on with the
//! `.parity` forms of `mbarrier.test_wait`/`try_wait` (PTX ISA 7.1), the only `mbarrier` waits
//! PTX defines for every token safe code can hold. LLVM writes PTX ISA 7.0 for sm_80, and
//! `-C target-feature=+ptx71` makes rustc warn in every crate of the build, so the builder writes
//! sm_80 as PTX ISA 7.1 itself: it raises the `.version` line and tells the library's build
//! script (`SCOPED_ATOMICS_PTX_ISA`). Skipped without the pinned nightly (a failure with
//! `CI=true`).

mod common;

use common::{kernel_crate, tools};
use scoped_atomics_build::PtxBuilder;

const BARRIERS: &str = r#"
use scoped_atomics::{Barrier, Block, SharedBarrier};
use scoped_atomics::kernel::sync_threads;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_arrive_wait() {
    let place = scoped_atomics::block_shared!(SHARED: [SharedBarrier; 1]).cast::<SharedBarrier>();
    if scoped_atomics::kernel::thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { SharedBarrier::init_in_place(place, scoped_atomics::kernel::block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above.
    let b = unsafe { &*place };
    let token = b.arrive();
    b.wait(token);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_parity(b: *const Barrier<Block>) {
    // SAFETY: the launcher passes a live barrier.
    unsafe { &*b }.wait_parity(false)
}
"#;

#[test]
fn an_sm_80_build_is_ptx_isa_7_1_with_parity_waits_and_no_feature_flag() {
    let Some(tc) = tools("an_sm_80_build_is_ptx_isa_7_1_with_parity_waits_and_no_feature_flag")
    else {
        return;
    };
    let dir = kernel_crate(&tc, "sm80-parity", BARRIERS);
    let builder = PtxBuilder::new(&dir)
        .arch("sm_80")
        .verify_with_ptxas(true)
        .out_dir(tc.root.join("target/ptx/scratch-refusals/out"));
    let target = builder.target().unwrap();
    assert!(
        !target.rustflags().iter().any(|f| f.contains("ptx71")),
        "{:?}",
        target.rustflags()
    );
    let path = builder.build().unwrap_or_else(|e| panic!("{e}"));
    let ptx = std::fs::read_to_string(&path).unwrap();
    assert!(
        ptx.lines().any(|l| l.trim() == ".version 7.1"),
        "the PTX is not ISA 7.1"
    );
    let mbarrier: Vec<&str> = ptx
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("mbarrier."))
        .collect();
    for needed in ["mbarrier.arrive", "mbarrier.test_wait.parity"] {
        assert!(
            mbarrier.iter().any(|l| l.contains(needed)),
            "no {needed}: {mbarrier:#?}"
        );
    }
    assert!(
        !mbarrier
            .iter()
            .any(|l| (l.contains("test_wait") || l.contains("try_wait")) && !l.contains(".parity")),
        "a state-token wait: {mbarrier:#?}"
    );
    // Asked for explicitly, PTX ISA 7.0 stays LLVM's, and the block barriers are the generic
    // ones (no `mbarrier` at all), whose tokens are phase numbers the waits check.
    let path = PtxBuilder::new(&dir)
        .arch("sm_80")
        .ptx_isa(7, 0)
        .out_dir(tc.root.join("target/ptx/scratch-refusals/out"))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let ptx = std::fs::read_to_string(&path).unwrap();
    assert!(ptx.lines().any(|l| l.trim() == ".version 7.0"));
    assert!(!ptx.contains("mbarrier."), "PTX ISA 7.0 with mbarrier");
}
