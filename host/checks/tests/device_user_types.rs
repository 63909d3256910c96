//! Issue 25, item 5, on the device: an `Atomic<T, S>` over a user's type (`AtomicValue`) of 1,
//! 2, 4 or 8 bytes is the same PTX as the atomic of the unsigned integer of that size: the same
//! scoped memory instructions in the same order (`load`, `store`, `swap`, `compare_exchange`, `fetch_update`). Built for sm_80
//! with the conformance flags; skipped without the tools (a failure with `CI=true`).

mod scratch;

use scoped_atomics_host::ptx::Target;

/// A kernel pair per size: `value_<bits>` over the user's type, `int_<bits>` over the integer,
/// each doing the same operations.
fn source() -> String {
    let mut src = String::from(
        r#"
use scoped_atomics::{Atomic, AtomicValue, Device, Ordering::*};

macro_rules! user_type {
    ($name:ident, $bits:ty, $($field:ident: $t:ty),*) => {
        #[derive(Clone, Copy, Default)]
        #[repr(C)]
        pub struct $name { $($field: $t),* }
        // SAFETY: `repr(C)` with fields of one type: no padding; `Copy` and `'static`.
        unsafe impl bytemuck::NoUninit for $name {}
        impl AtomicValue for $name { type Bits = $bits; }
    };
}
user_type!(Level, u8, v: u8);
user_type!(Rg, u16, r: u8, g: u8);
user_type!(Rgba, u32, r: u8, g: u8, b: u8, a: u8);
user_type!(Pair, u64, version: u32, value: u32);

macro_rules! kernels {
    ($name:ident, $t:ty) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(p: *mut $t, a: *const $t, b: *const $t, out: *mut $t) {
            // SAFETY: the launcher passes valid, aligned locations.
            let (x, a, b) = unsafe { (Atomic::<$t, Device>::from_ptr(p), a.read(), b.read()) };
            let first = x.load(Acquire);
            x.store(a, Release);
            let swapped = x.swap(b, AcqRel);
            let r = match x.compare_exchange(first, swapped, AcqRel, Acquire) { Ok(v) | Err(v) => v };
            let u = x.fetch_update(Release, Relaxed, |_| Some(r)).unwrap_or(r);
            // SAFETY: as above.
            unsafe { out.write(u) };
        }
    };
}

"#,
    );
    for (t, bits) in [("Level", 8), ("Rg", 16), ("Rgba", 32), ("Pair", 64)] {
        src += &format!("kernels!(value_{bits}, {t});\nkernels!(int_{bits}, u{bits});\n");
    }
    src
}

#[test]
fn a_user_type_is_the_ptx_of_the_integer_of_its_size() {
    let Some(tc) = scratch::toolchain("device_user_types") else {
        return;
    };
    let dir = scratch::crate_dir(
        &tc,
        "user-types",
        // The scratch crate's second dependency, for `NoUninit`.
        ", default-features = false }\nbytemuck = { version = \"1\", default-features = false",
        &format!("{}{}", scratch::PRELUDE, source()),
    );
    let kernels = scratch::kernels(&tc, &dir, Target::Sm80);
    for bits in [8, 16, 32, 64] {
        // The scoped memory operations (`.gpu`), in order: the plain loads of the arguments may
        // differ (a struct of bytes is read byte by byte), the atomics may not.
        let scoped = |name: String| -> Vec<String> {
            scratch::mnemonics(scratch::kernel(&kernels, &name))
                .into_iter()
                .filter(|m| m.contains(".gpu."))
                .collect()
        };
        let (value, int) = (
            scoped(format!("value_{bits}")),
            scoped(format!("int_{bits}")),
        );
        assert_eq!(value, int, "{bits}-bit user type and u{bits} differ");
        assert!(value.len() >= 5, "{value:?}");
        // A byte's compare-exchange is one on its 32-bit word.
        let cas = format!(".gpu.cas.b{}", if bits == 8 { 32 } else { bits });
        assert!(
            value
                .iter()
                .any(|m| m.starts_with("atom.") && m.ends_with(&cas)),
            "no atom…{cas} in the {bits}-bit kernel: {value:?}"
        );
    }
}
