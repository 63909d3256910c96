//! Issue 16: the primitives' device paths are as lean as libcu++'s: in release builds at sm_80 and
//! sm_90, no kernel of a primitive's operation holds a `call` or uses local memory (`.local`,
//! `__local_depot`). A misuse stops the kernel with `trap` alone: the panic messages (built in a
//! local buffer by calls) exist on the host only.

mod scratch;

use scoped_atomics_host::ptx::Target;

/// Every operation of every primitive at block, device and system scope (the kernel names are
/// `<operation>_<scope>`), and the block barrier in shared memory.
fn kernels_source() -> String {
    let mut src = String::from(
        "use scoped_atomics::{Atomic, AtomicFlag, Barrier, BinarySemaphore, Block, CountingSemaphore, \
         Device, Latch, Ordering, System, time::Instant};\nuse core::time::Duration;\n",
    );
    let operations: [(&str, &str, &str); 22] = [
        ("barrier_arrive_wait", "Barrier<{S}>", "b.arrive_and_wait()"),
        (
            "barrier_arrive_then_wait",
            "Barrier<{S}>",
            "{ let t = b.arrive(); b.wait(t) }",
        ),
        (
            "barrier_arrive_n",
            "Barrier<{S}>",
            "{ let t = b.arrive_n(n); b.wait(t) }",
        ),
        ("barrier_arrive_drop", "Barrier<{S}>", "b.arrive_and_drop()"),
        ("latch_count_down", "Latch<{S}>", "b.count_down(n)"),
        ("latch_arrive_wait", "Latch<{S}>", "b.arrive_and_wait(n)"),
        (
            "semaphore_acquire_release",
            "CountingSemaphore<{S}, 4>",
            "{ b.acquire(); b.release(n) }",
        ),
        (
            "semaphore_try_acquire_for",
            "BinarySemaphore<{S}>",
            "if b.try_acquire_for(core::time::Duration::from_micros(10)) { b.release(1) }",
        ),
        (
            "atomic_wait",
            "Atomic<u32, {S}>",
            "b.wait(n, Ordering::Acquire)",
        ),
        ("atomic_notify_one", "Atomic<u32, {S}>", "b.notify_one()"),
        ("atomic_notify_all", "Atomic<u32, {S}>", "b.notify_all()"),
        ("latch_try_wait", "Latch<{S}>", "let _ = b.try_wait()"),
        // Issue 14: the non-blocking, timed and parity waits.
        (
            "barrier_try_wait",
            "Barrier<{S}>",
            "{ let t = b.arrive(); while !b.try_wait(&t) {} }",
        ),
        (
            "barrier_try_wait_for",
            "Barrier<{S}>",
            "{ let t = b.arrive(); if !b.try_wait_for(&t, Duration::from_micros(10)) { b.wait(t) } }",
        ),
        (
            "barrier_try_wait_until",
            "Barrier<{S}>",
            "{ let t = b.arrive(); let _ = b.try_wait_until(t, Instant::now() + Duration::from_micros(10)); }",
        ),
        (
            "barrier_wait_parity",
            "Barrier<{S}>",
            "b.wait_parity(n != 0)",
        ),
        (
            "barrier_try_wait_parity",
            "Barrier<{S}>",
            "let _ = b.try_wait_parity(n != 0)",
        ),
        (
            "barrier_try_wait_parity_for",
            "Barrier<{S}>",
            "let _ = b.try_wait_parity_for(n != 0, Duration::from_micros(10))",
        ),
        (
            "semaphore_try_acquire_until",
            "BinarySemaphore<{S}>",
            "if b.try_acquire_until(Instant::now() + Duration::from_micros(10)) { b.release(1) }",
        ),
        (
            "atomic_wait_for",
            "Atomic<u32, {S}>",
            "let _ = b.wait_for(n, Ordering::Acquire, Duration::from_micros(10))",
        ),
        (
            "atomic_wait_until",
            "Atomic<u32, {S}>",
            "let _ = b.wait_until(n, Ordering::Acquire, Instant::now() + Duration::from_micros(10))",
        ),
        (
            "flag_wait_for",
            "AtomicFlag<{S}>",
            "let _ = b.wait_for(n != 0, Ordering::Acquire, Duration::from_micros(10))",
        ),
    ];
    for scope in ["Block", "Device", "System"] {
        for (name, primitive, body) in operations {
            let primitive = primitive.replace("{S}", scope);
            // A parity wait on a `Barrier<Block>` needs PTX ISA 7.1 on sm_80 (a compile-time
            // error at the default 7.0; see device_barrier.rs).
            if scope == "Block" && name.contains("parity") {
                src += "#[cfg(any(target_feature = \"ptx71\", target_feature = \"sm_90\"))]\n";
            }
            src += &format!(
                "#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn {name}_{}(b: *const {primitive}, n: u32) {{\n    \
                 // SAFETY: the launcher passes a live primitive.\n    let b = unsafe {{ &*b }};\n    let _ = n;\n    {body};\n}}\n",
                scope.to_lowercase()
            );
        }
    }
    src += r#"
/// Issue 24, item 5: the block barrier whose type says it is in shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shared_barrier_block(n: u32) {
    use scoped_atomics::SharedBarrier;
    use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};
    let place = scoped_atomics::block_shared!(SHARED: [SharedBarrier; 1]).cast::<SharedBarrier>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { SharedBarrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above.
    let barrier = unsafe { &*place };
    barrier.arrive_and_wait();
    let token = barrier.arrive_n(n);
    let _ = barrier.try_wait(&token);
    let _ = barrier.try_wait_for(&token, Duration::from_micros(10));
    barrier.wait(token);
    #[cfg(any(target_feature = "ptx71", target_feature = "sm_90"))]
    {
        let _ = barrier.try_wait_parity(true);
        barrier.wait_parity(true);
    }
    barrier.arrive_and_drop();
    sync_threads();
    if thread_idx().x == 0 {
        // SAFETY: every use is ordered before this by `sync_threads`.
        unsafe { SharedBarrier::invalidate_in_place(place) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn barrier_shared_block() {
    use scoped_atomics::kernel::{block_dim, sync_threads, thread_idx};
    let place = scoped_atomics::block_shared!(BARRIER: [Barrier<Block>; 1]).cast::<Barrier<Block>>();
    if thread_idx().x == 0 {
        // SAFETY: block-shared memory, used after the `sync_threads` below.
        unsafe { Barrier::init_in_place(place, block_dim().x) };
    }
    sync_threads();
    // SAFETY: initialised above.
    let barrier = unsafe { &*place };
    barrier.arrive_and_wait();
    let token = barrier.arrive();
    barrier.wait(token);
    // Issue 14: the hardware forms of the non-blocking, timed and parity waits.
    let token = barrier.arrive();
    let _ = barrier.try_wait(&token);
    let _ = barrier.try_wait_for(&token, Duration::from_micros(10));
    let _ = barrier.try_wait_until(&token, Instant::now() + Duration::from_micros(10));
    barrier.wait(token);
    #[cfg(any(target_feature = "ptx71", target_feature = "sm_90"))]
    {
        let _ = barrier.try_wait_parity(true);
        let _ = barrier.try_wait_parity_for(true, Duration::from_micros(10));
        barrier.wait_parity(true);
    }
    sync_threads();
    if thread_idx().x == 0 {
        // SAFETY: every use is ordered before this by `sync_threads`.
        unsafe { Barrier::invalidate_in_place(place) };
    }
}
"#;
    src
}

#[test]
fn primitive_kernels_have_no_call_and_no_local_memory() {
    let Some(tc) = scratch::toolchain("device_lean") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "primitives-lean",
        ", default-features = false",
        &format!("{}{}", scratch::PRELUDE, kernels_source()),
    );
    let mut failures = Vec::new();
    for target in [Target::Sm80, Target::Sm90] {
        let kernels = scratch::kernels(&tc, &dir, target);
        let entries: Vec<_> = kernels.iter().filter(|k| k.entry).collect();
        assert!(
            entries.len() >= 64,
            "{target}: only {} kernels",
            entries.len()
        );
        for kernel in entries {
            let calls = scratch::mnemonics(kernel)
                .iter()
                .filter(|m| m.starts_with("call"))
                .count();
            let local = kernel
                .body
                .iter()
                .filter(|l| l.contains(".local") || l.contains("__local_depot"))
                .count();
            if calls != 0 || local != 0 {
                failures.push(format!(
                    "{target} {}: {calls} call(s), {local} line(s) using local memory",
                    kernel.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The device keeps the compile-time messages: a `static` built with a bad count is still a
/// compile error that says why (only the run-time path traps without a message).
#[test]
fn a_bad_static_primitive_is_still_a_compile_error_with_its_message_on_the_device() {
    let Some(tc) = scratch::toolchain("device_lean") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "bad-static",
        ", default-features = false",
        &format!(
            "{}pub static BROKEN: scoped_atomics::Barrier<scoped_atomics::Device> = \
             scoped_atomics::Barrier::new(0);\n",
            scratch::PRELUDE
        ),
    );
    let target = Target::Sm80;
    let stderr = scratch::compile_error(&tc, &dir, target, "a barrier of 0");
    assert!(
        stderr.contains(
            "Barrier::new: the expected count is 0; a barrier needs at least 1 arrival per phase"
        ),
        "the compile error lost its message:\n{stderr}"
    );
}
