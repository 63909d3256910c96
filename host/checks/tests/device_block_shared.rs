//! Issue 10, bug 9: `block_shared!` on the device.
//!
//! * In a generic function whose array type depends on the generic parameters it must be a clean
//!   compile error (E0401), not a rustc crash (the old `global_asm!` `const` operand naming the
//!   outer `T` made rustc report "internal compiler error").
//! * The `.shared` array is aligned as its element type (the old macro wrote `.align 16` for
//!   every array: too little for a 64-aligned type, needlessly much for bytes).
//!
//! The host side (the fill pattern, the alignment) is tested in
//! `atomics/tests/kernel_emulation.rs`.

mod scratch;

use scoped_atomics_host::ptx::Target;

const GENERIC: &str = r#"
#[inline(always)]
fn generic<T: Copy>() -> *mut [T; 4] {
    scoped_atomics::block_shared!(X: [T; 4])
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn uses_generic(p: *mut u64) {
    // SAFETY: the launcher passes a valid location.
    unsafe { p.write(generic::<u8>() as u64) }
}
"#;

const ALIGNED: &str = r#"
#[repr(C, align(64))]
pub struct Line([u8; 64]);

/// Not generic in the array type: fine.
#[inline(always)]
fn generic_fine<T>() -> *mut [u32; 4] {
    scoped_atomics::block_shared!(FINE: [u32; 4])
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn aligned(p: *mut u64) {
    let lines = scoped_atomics::block_shared!(LINES: [Line; 2]);
    let bytes = scoped_atomics::block_shared!(BYTES: [u8; 3]);
    // SAFETY: the launcher passes three valid locations.
    unsafe {
        p.write(lines as u64);
        p.add(1).write(bytes as u64);
        p.add(2).write(generic_fine::<u8>() as u64);
    }
}
"#;

#[test]
fn block_shared_of_a_generic_type_is_a_clear_compile_error() {
    let Some(tc) = scratch::toolchain("device_block_shared") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "block-shared-generic",
        ", default-features = false",
        &format!("{}{GENERIC}", scratch::PRELUDE),
    );
    let target = Target::Sm80;
    let (out, _) = scratch::build_with(
        &tc,
        &dir,
        &tc.target_dir(target),
        &target.rustflags(),
        scratch::Extra::default(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a generic block_shared! array compiled:\n{stderr}"
    );
    assert!(
        !stderr.contains("internal compiler error"),
        "rustc crashed instead of reporting an error:\n{stderr}"
    );
    assert!(
        stderr.contains("E0401") && stderr.contains("generic parameter"),
        "no E0401 about the generic parameter:\n{stderr}"
    );
}

#[test]
fn block_shared_arrays_are_aligned_as_their_element_type() {
    let Some(tc) = scratch::toolchain("device_block_shared") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "block-shared-aligned",
        ", default-features = false",
        &format!("{}{ALIGNED}", scratch::PRELUDE),
    );
    for target in [Target::Sm70, Target::Sm90] {
        let (out, ptx) = scratch::build_with(
            &tc,
            &dir,
            &tc.target_dir(target),
            &target.rustflags(),
            scratch::Extra::default(),
        );
        assert!(
            out.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(ptx).unwrap();
        let declaration = |name: &str| {
            text.lines()
                .find(|l| {
                    l.contains(".shared") && l.contains(&format!("__scoped_atomics_shared_{name}_"))
                })
                .unwrap_or_else(|| panic!("{target}: no .shared array {name}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (name, align, bytes) in [("LINES", 64, 128), ("BYTES", 1, 3), ("FINE", 4, 16)] {
            let d = declaration(name);
            assert!(
                d.contains(&format!(".align {align} ")) && d.contains(&format!("[{bytes}]")),
                "{target}: {name} should be {bytes} bytes aligned to {align}: `{d}`"
            );
        }
    }
}
