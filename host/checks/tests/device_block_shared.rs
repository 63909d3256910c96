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
    let stderr = scratch::compile_error(&tc, &dir, target, "a generic block_shared! array");
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
        let (text, _) = scratch::ptx(&tc, &dir, target);
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

/// Issue 23, item 2: the device symbol of a `block_shared!` array was
/// `__scoped_atomics_shared_<NAME>_<line>_<column>`, with nothing of the module or the file, so two
/// kernels in two files that declare `block_shared!(BINS: [u32; 16])` on the same line and column
/// gave PTX that ptxas rejects ("Duplicate definition of variable"). Here `a.rs` and `b.rs` do
/// exactly that; the PTX must assemble, with two distinct arrays.
#[test]
fn block_shared_arrays_of_two_files_at_the_same_line_and_column_are_distinct() {
    let Some(tc) = scratch::toolchain("device_block_shared") else {
        return;
    };
    let file = |kernel: &str| {
        format!(
            "#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn {kernel}(p: *mut u64) {{\n    \
             let bins = scoped_atomics::block_shared!(BINS: [u32; 16]);\n    \
             // SAFETY: the launcher passes a valid location.\n    unsafe {{ p.write(bins as u64) }}\n}}\n"
        )
    };
    let dir = scratch::crate_dir(
        &tc,
        "block-shared-two-files",
        ", default-features = false",
        &format!("{}mod a;\nmod b;\n", scratch::PRELUDE),
    );
    std::fs::write(dir.join("src/a.rs"), file("in_a")).unwrap();
    std::fs::write(dir.join("src/b.rs"), file("in_b")).unwrap();
    let target = Target::Sm80;
    let (text, ptx) = scratch::ptx(&tc, &dir, target);
    let arrays: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.trim_start().starts_with(".shared") && l.contains("__scoped_atomics_shared_BINS_")
        })
        .collect();
    assert_eq!(arrays.len(), 2, "two BINS arrays: {arrays:#?}");
    assert_ne!(arrays[0].trim(), arrays[1].trim(), "one symbol twice");
    scoped_atomics_host::ptx::assemble(&tc, &ptx, target)
        .unwrap_or_else(|e| panic!("ptxas rejects the two arrays: {e}"));
}

/// Issue 23, item 2: a zero-sized `block_shared!` array (zero elements, or a zero-sized element
/// type) is a compile error that says so, on the device (where it was `.b8 X[0]`, which ptxas
/// rejects) and on the host alike.
#[test]
fn a_zero_sized_block_shared_array_is_a_compile_error() {
    let Some(tc) = scratch::toolchain("device_block_shared") else {
        return;
    };
    for (name, declaration) in [("zero-length", "[u32; 0]"), ("zero-sized-type", "[(); 4]")] {
        let dir = scratch::crate_dir(
            &tc,
            &format!("block-shared-{name}"),
            ", default-features = false",
            &format!(
                "{}#[unsafe(no_mangle)]\npub unsafe extern \"ptx-kernel\" fn empty(p: *mut u64) {{\n    \
                 let x = scoped_atomics::block_shared!(X: {declaration});\n    \
                 // SAFETY: the launcher passes a valid location.\n    unsafe {{ p.write(x as u64) }}\n}}\n",
                scratch::PRELUDE
            ),
        );
        let target = Target::Sm80;
        let stderr = scratch::compile_error(&tc, &dir, target, name);
        assert!(
            stderr.contains("block_shared!") && stderr.contains("zero-sized"),
            "{name}: the error does not say why:\n{stderr}"
        );
    }
}
