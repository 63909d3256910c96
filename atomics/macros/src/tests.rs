//! The expansion, and the errors of misuse with their messages (the compile-fail examples on
//! the re-export in `scoped-atomics` check that they stop the build).

use super::expand;
use quote::quote;

fn expanded(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
    expand(attr, item).unwrap().to_string()
}

fn error(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
    match expand(attr, item) {
        Ok(tokens) => panic!("expected an error, got {tokens}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_plain_kernel_gets_one_entry_point_of_its_own_name() {
    let out = expanded(
        quote!(),
        quote!(
            pub unsafe fn histogram(input: *const u32, len: usize) {}
        ),
    );
    assert!(out.contains("pub unsafe fn histogram"), "{out}");
    assert!(out.contains("# [cfg (target_arch = \"nvptx64\")]"), "{out}");
    assert!(out.contains("# [unsafe (no_mangle)]"), "{out}");
    assert!(
        out.contains("pub unsafe extern \"ptx-kernel\" fn histogram (__kernel_arg0 : * const u32 , __kernel_arg1 : usize)"),
        "{out}"
    );
    assert!(
        out.contains("self :: histogram (__kernel_arg0 , __kernel_arg1)"),
        "{out}"
    );
    assert!(out.contains("- `histogram`"), "{out}");
}

#[test]
fn each_instantiation_is_an_entry_point_named_as_stated() {
    let out = expanded(
        quote!(instantiate(Device, bug = scoped_atomics::Block)),
        quote!(
            pub unsafe fn sum<S: Scope>(total: *mut u32) {}
        ),
    );
    assert!(out.contains("extern \"ptx-kernel\" fn sum_Device"), "{out}");
    assert!(out.contains("type S = Device ;"), "{out}");
    assert!(
        out.contains("self :: sum :: < Device > (__kernel_arg0)"),
        "{out}"
    );
    assert!(out.contains("extern \"ptx-kernel\" fn bug"), "{out}");
    assert!(
        out.contains("self :: sum :: < scoped_atomics :: Block >"),
        "{out}"
    );
    assert!(out.contains("- `sum_Device`: S = Device"), "{out}");
}

#[test]
fn several_parameters_and_const_parameters_bind_in_order() {
    let out = expanded(
        quote!(instantiate((Device, 4))),
        quote!(
            pub fn k<S: Scope, const N: usize>(x: *mut [u32; N]) {}
        ),
    );
    assert!(out.contains("fn k_Device_4"), "{out}");
    assert!(out.contains("const N : usize = 4 ;"), "{out}");
}

#[test]
fn a_cfg_option_gates_the_entry_points_only() {
    let out = expanded(
        quote!(cfg(target_feature = "sm_90")),
        quote!(
            pub fn cluster() {}
        ),
    );
    assert!(
        out.contains("# [cfg (all (target_arch = \"nvptx64\" , target_feature = \"sm_90\"))]"),
        "{out}"
    );
    assert!(
        out.starts_with("# [doc"),
        "the function itself is not gated: {out}"
    );
}

#[test]
fn a_private_kernel_is_refused_with_the_reason() {
    let e = error(
        quote!(),
        quote!(
            unsafe fn histogram() {}
        ),
    );
    assert!(e.contains("must be `pub`: write `pub fn histogram`"), "{e}");
    let e = error(
        quote!(),
        quote!(
            pub(crate) fn histogram() {}
        ),
    );
    assert!(e.contains("must be `pub`"), "{e}");
}

#[test]
fn a_kernel_returning_a_value_is_refused_with_the_reason() {
    let e = error(
        quote!(),
        quote!(
            pub fn count() -> u32 {
                0
            }
        ),
    );
    assert!(e.contains("returns nothing"), "{e}");
    assert!(e.contains("remove `-> u32`"), "{e}");
}

#[test]
fn generic_kernels_need_instantiations_of_the_right_arity() {
    let e = error(
        quote!(),
        quote!(
            pub fn k<S: Scope>() {}
        ),
    );
    assert!(e.contains("needs its instantiations"), "{e}");
    let e = error(
        quote!(instantiate(Device)),
        quote!(
            pub fn k() {}
        ),
    );
    assert!(e.contains("is for generic kernels"), "{e}");
    let e = error(
        quote!(instantiate((Device, Block))),
        quote!(
            pub fn k<S: Scope>() {}
        ),
    );
    assert!(
        e.contains("gives 2 generic argument(s), but `k` has 1"),
        "{e}"
    );
    let e = error(
        quote!(instantiate(S)),
        quote!(
            pub fn k<S: Scope>() {}
        ),
    );
    assert!(e.contains("own generic parameter `S`"), "{e}");
    let e = error(
        quote!(instantiate(&'static u32)),
        quote!(
            pub fn k<T>() {}
        ),
    );
    assert!(e.contains("name this entry point"), "{e}");
}

#[test]
fn other_misuse_is_refused() {
    let e = error(
        quote!(grid(4)),
        quote!(
            pub fn k() {}
        ),
    );
    assert!(e.contains("unknown `#[kernel]` option `grid`"), "{e}");
    let e = error(
        quote!(),
        quote!(
            pub async fn k() {}
        ),
    );
    assert!(e.contains("cannot be `async`"), "{e}");
    let e = error(
        quote!(),
        quote!(
            pub extern "C" fn k() {}
        ),
    );
    assert!(e.contains("remove the ABI"), "{e}");
    let e = error(
        quote!(),
        quote!(
            pub fn k(x: impl Copy) {}
        ),
    );
    assert!(e.contains("cannot be `impl Trait`"), "{e}");
}

#[test]
fn each_entry_point_gets_a_launch_descriptor_named_in_upper_case() {
    let out = expanded(
        quote!(instantiate(Device, bug = scoped_atomics::Block)),
        quote!(
            pub unsafe fn sum<S: Scope>(total: *mut u32, n: usize) {}
        ),
    );
    // One constant per entry point, on every target: the host one with the function behind a
    // call by argument bytes (each parameter read in order) and the parameter sizes, the
    // device one with the name only.
    for (constant, entry, arguments) in [
        ("SUM_DEVICE", "sum_Device", "< Device >"),
        ("BUG", "bug", "< scoped_atomics :: Block >"),
    ] {
        assert_eq!(
            out.matches(&format!(
                "pub const {constant} : :: scoped_atomics :: kernel :: KernelEntry"
            ))
            .count(),
            2,
            "{out}"
        );
        assert!(
            out.contains(&format!("KernelEntry :: __host (\"{entry}\"")),
            "{out}"
        );
        assert!(
            out.contains(&format!("KernelEntry :: __device (\"{entry}\")")),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "sum :: {arguments} (:: scoped_atomics :: kernel :: __read_param (__kernel_arguments , 0usize) , \
                 :: scoped_atomics :: kernel :: __read_param (__kernel_arguments , 1usize))"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!("sum :: {arguments} as unsafe fn (_ , _)")),
            "{out}"
        );
    }
    // The host constant is not compiled for the device, so it never reaches the PTX.
    assert_eq!(
        out.matches("# [cfg (not (target_arch = \"nvptx64\"))]")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("(launch description [`SUM_DEVICE`])"), "{out}");
}

#[test]
fn a_descriptor_that_clashes_is_refused_with_the_reason() {
    let e = error(
        quote!(instantiate(a = Device, A = Block)),
        quote!(
            pub fn k<S: Scope>() {}
        ),
    );
    assert!(
        e.contains("entry points `a` and `A` would share the launch descriptor `A`"),
        "{e}"
    );
    let e = error(
        quote!(),
        quote!(
            pub fn K() {}
        ),
    );
    assert!(e.contains("the function's own name"), "{e}");
}
