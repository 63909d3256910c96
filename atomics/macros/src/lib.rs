//! The `#[kernel]` attribute of `scoped-atomics`, re-exported as `scoped_atomics::kernel`: it
//! writes a kernel function's PTX entry points (`extern "ptx-kernel"`, `#[no_mangle]`) so that a
//! kernel crate never writes one by hand, and one launch description per entry point (a `pub
//! const` `scoped_atomics::kernel::KernelEntry`). Its documentation, with examples, is on the
//! re-export in `scoped-atomics`.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{
    Error, FnArg, GenericArgument, GenericParam, Ident, ItemFn, Meta, ReturnType, Token, Type,
    Visibility, parenthesized,
};

/// Turns `pub fn name(args…)` into the PTX entry point `name` on `nvptx64`, leaving the function
/// as it is (callable on the host by its name), and writes the launch description `NAME` (a
/// `KernelEntry`) on every target. See `scoped_atomics::kernel` (the attribute).
#[proc_macro_attribute]
pub fn kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    expand(attr.into(), item.into())
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// The attribute's arguments: `cfg(PREDICATE)` and `instantiate(…)`, in any order, each at most
/// once.
#[derive(Default)]
struct Options {
    /// A predicate the entry points are compiled under, besides `target_arch = "nvptx64"`.
    cfg: Option<TokenStream>,
    /// The instantiations of a generic kernel (one entry point each).
    instantiate: Option<Vec<Instantiation>>,
}

/// One entry point of a generic kernel: its exported name (if given), and the generic
/// arguments in the order of the function's type and const parameters.
#[derive(Clone)]
struct Instantiation {
    name: Option<Ident>,
    arguments: Vec<GenericArgument>,
    span: Span,
}

impl Parse for Options {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut options = Options::default();
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            let content;
            parenthesized!(content in input);
            if key == "cfg" {
                if options.cfg.is_some() {
                    return Err(Error::new(key.span(), "`cfg(…)` is given twice"));
                }
                let predicate: Meta = content.parse()?;
                options.cfg = Some(quote!(#predicate));
            } else if key == "instantiate" {
                if options.instantiate.is_some() {
                    return Err(Error::new(key.span(), "`instantiate(…)` is given twice"));
                }
                let list = Punctuated::<Instantiation, Token![,]>::parse_terminated(&content)?;
                options.instantiate = Some(list.into_iter().collect());
            } else {
                return Err(Error::new(
                    key.span(),
                    format!(
                        "unknown `#[kernel]` option `{key}`: the options are \
                         `instantiate(…)` (the entry points of a generic kernel) and \
                         `cfg(…)` (a condition on the entry points, e.g. \
                         `cfg(target_feature = \"sm_90\")`)"
                    ),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(options)
    }
}

impl Parse for Instantiation {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let span = input.span();
        let name = if input.peek(Ident) && input.peek2(Token![=]) {
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            Some(name)
        } else {
            None
        };
        // `(A, B)` lists the arguments of a kernel with several generic parameters; a single
        // argument stands alone.
        let arguments = if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            Punctuated::<GenericArgument, Token![,]>::parse_terminated(&content)?
                .into_iter()
                .collect()
        } else {
            vec![input.parse()?]
        };
        Ok(Instantiation {
            name,
            arguments,
            span,
        })
    }
}

/// The expansion: the function unchanged (with its entry points named in its documentation),
/// on `nvptx64` one entry point per instantiation, and on every target one launch description
/// per instantiation (on the host with a call by argument bytes: `KernelEntry::call`). Misuse is
/// an error at its span.
fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let options: Options = syn::parse2(attr)?;
    let mut function: ItemFn = syn::parse2(item)?;
    check_signature(&function)?;
    let sig = &function.sig;
    let name = &sig.ident;
    let parameters: Vec<&GenericParam> = sig
        .generics
        .params
        .iter()
        .filter(|p| !matches!(p, GenericParam::Lifetime(_)))
        .collect();
    let lifetimes: Vec<_> = sig.generics.lifetimes().collect();
    let instantiations = match (&options.instantiate, parameters.is_empty()) {
        (None, true) => vec![Instantiation {
            name: None,
            arguments: Vec::new(),
            span: name.span(),
        }],
        (None, false) => {
            return Err(Error::new_spanned(
                &sig.generics,
                format!(
                    "a generic kernel needs its instantiations: \
                     `#[kernel(instantiate(…))]` lists them, one PTX entry point each \
                     (e.g. `#[kernel(instantiate({name} = Device))]`)"
                ),
            ));
        }
        (Some(_), true) => {
            return Err(Error::new_spanned(
                name,
                "`instantiate(…)` is for generic kernels; this one has no type or const \
                 parameter: remove it (its entry point is named after the function)",
            ));
        }
        (Some(list), false) => {
            if list.is_empty() {
                return Err(Error::new_spanned(
                    &sig.generics,
                    "`instantiate()` lists no instantiation: name at least one",
                ));
            }
            list.clone()
        }
    };

    let parameter_names: Vec<String> = parameters.iter().map(|p| parameter_name(p)).collect();
    let types: Vec<&Type> = sig
        .inputs
        .iter()
        .map(|arg| match arg {
            FnArg::Typed(t) => &*t.ty,
            FnArg::Receiver(_) => unreachable!("refused by check_signature"),
        })
        .collect();
    let args: Vec<Ident> = (0..types.len())
        .map(|i| format_ident!("__kernel_arg{}", i))
        .collect();
    let gate = match &options.cfg {
        Some(predicate) => quote!(#[cfg(all(target_arch = "nvptx64", #predicate))]),
        None => quote!(#[cfg(target_arch = "nvptx64")]),
    };

    let mut entries = Vec::new();
    let mut descriptors = Vec::new();
    let mut names: Vec<(String, Vec<GenericArgument>)> = Vec::new();
    for instantiation in &instantiations {
        if instantiation.arguments.len() != parameters.len() {
            return Err(Error::new(
                instantiation.span,
                format!(
                    "this instantiation gives {} generic argument(s), but `{name}` has {} type \
                     or const parameter(s) ({}): write one argument per parameter, in order, \
                     `(A, B)` for several",
                    instantiation.arguments.len(),
                    parameters.len(),
                    parameter_names.join(", ")
                ),
            ));
        }
        for argument in &instantiation.arguments {
            if let Some(clash) = mentions(quote!(#argument), &parameter_names) {
                return Err(Error::new_spanned(
                    argument,
                    format!(
                        "an instantiation may not name the kernel's own generic parameter \
                         `{clash}`: give the type it stands for"
                    ),
                ));
            }
        }
        let entry = match &instantiation.name {
            Some(entry) => entry.clone(),
            None if parameters.is_empty() => name.clone(),
            None => default_name(name, &instantiation.arguments)?,
        };
        // The generic parameters, bound to this instantiation's arguments inside the entry
        // point's block: the parameter types may mention them.
        let bindings = parameters
            .iter()
            .zip(&instantiation.arguments)
            .map(|(p, a)| match p {
                GenericParam::Type(t) => {
                    let ident = &t.ident;
                    quote!(type #ident = #a;)
                }
                GenericParam::Const(c) => {
                    let (ident, ty) = (&c.ident, &c.ty);
                    quote!(const #ident: #ty = #a;)
                }
                GenericParam::Lifetime(_) => unreachable!("lifetimes are filtered out"),
            });
        let turbofish = if parameters.is_empty() {
            quote!()
        } else {
            let arguments = &instantiation.arguments;
            quote!(::<#(#arguments),*>)
        };
        let lifetimes = if lifetimes.is_empty() {
            quote!()
        } else {
            quote!(<#(#lifetimes),*>)
        };
        let bindings: Vec<TokenStream> = bindings.collect();
        entries.push(quote! {
            #gate
            const _: () = {
                #(#bindings)*
                #[unsafe(no_mangle)]
                #[allow(unused_unsafe, non_snake_case, clippy::missing_safety_doc)]
                pub unsafe extern "ptx-kernel" fn #entry #lifetimes (#(#args: #types),*) {
                    // SAFETY: the launcher's side of the kernel's contract (its `# Safety`).
                    unsafe { self::#name #turbofish (#(#args),*) }
                }
            };
        });
        let descriptor = descriptor_name(&entry);
        if descriptor == *name {
            return Err(Error::new(
                instantiation.span,
                format!(
                    "the launch descriptor of entry point `{entry}` would be the constant \
                     `{descriptor}`, the function's own name: name the function in snake case"
                ),
            ));
        }
        if let Some((clash, _)) = names
            .iter()
            .find(|(other, _)| descriptor_name(&Ident::new(other, Span::call_site())) == descriptor)
        {
            return Err(Error::new(
                instantiation.span,
                format!(
                    "entry points `{clash}` and `{entry}` would share the launch descriptor \
                     `{descriptor}`: give them names that differ in more than case"
                ),
            ));
        }
        let entry_name = entry.to_string();
        let reads = (0..types.len())
            .map(|i| quote!(::scoped_atomics::kernel::__read_param(__kernel_arguments, #i)));
        let placeholders = types.iter().map(|_| quote!(_));
        let doc = format!(
            "The launch description of the PTX entry point `{entry}` (written by `#[kernel]` \
             on [`{name}`]): its name, and on the host the function called by argument bytes. \
             `scoped_atomics_host::launch::Launch` runs it on host threads, under loom, in \
             the simulator and on a GPU."
        );
        descriptors.push(quote! {
            #[cfg(not(target_arch = "nvptx64"))]
            #[doc = #doc]
            pub const #descriptor: ::scoped_atomics::kernel::KernelEntry = {
                #(#bindings)*
                #[allow(unused_unsafe, clippy::missing_safety_doc)]
                unsafe fn __kernel_host_entry(__kernel_arguments: &[&[u8]]) {
                    // SAFETY: `KernelEntry::call`'s contract: each argument is a valid value of
                    // its parameter, and the kernel's own contract holds.
                    unsafe { #name #turbofish (#(#reads),*) }
                }
                ::scoped_atomics::kernel::KernelEntry::__host(
                    #entry_name,
                    ::scoped_atomics::kernel::__param_sizes(
                        #name #turbofish as unsafe fn(#(#placeholders),*)
                    ),
                    __kernel_host_entry,
                )
            };
            #[cfg(target_arch = "nvptx64")]
            #[doc = #doc]
            pub const #descriptor: ::scoped_atomics::kernel::KernelEntry =
                ::scoped_atomics::kernel::KernelEntry::__device(#entry_name);
        });
        names.push((entry_name, instantiation.arguments.clone()));
    }

    let note = entry_note(&names, &parameter_names, options.cfg.as_ref());
    function.attrs.push(syn::parse_quote!(#[doc = ""]));
    for line in note {
        function.attrs.push(syn::parse_quote!(#[doc = #line]));
    }
    Ok(quote! {
        #function
        #(#entries)*
        #(#descriptors)*
    })
}

/// What a kernel function may not be: private, returning a value, `async`, a method, variadic,
/// with an ABI of its own or an `impl Trait` parameter.
fn check_signature(function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    let name = &sig.ident;
    if !matches!(function.vis, Visibility::Public(_)) {
        return Err(Error::new_spanned(
            sig.fn_token,
            format!(
                "a `#[kernel]` function must be `pub`: write `pub fn {name}` (host tests, the \
                 executor and the simulator launch it by name from outside its module)"
            ),
        ));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(Error::new_spanned(
            ty,
            format!(
                "a `#[kernel]` function returns nothing (a PTX entry point has no return \
                 value): remove `-> {}` and write results through a pointer argument",
                quote!(#ty)
            ),
        ));
    }
    if let Some(asyncness) = &sig.asyncness {
        return Err(Error::new_spanned(
            asyncness,
            "a `#[kernel]` function cannot be `async`",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(Error::new_spanned(
            abi,
            "a `#[kernel]` function is a plain Rust function: remove the ABI (the attribute \
             writes the `extern \"ptx-kernel\"` entry point)",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(Error::new_spanned(
            variadic,
            "a `#[kernel]` function cannot be variadic",
        ));
    }
    for arg in &sig.inputs {
        match arg {
            FnArg::Receiver(receiver) => {
                return Err(Error::new_spanned(
                    receiver,
                    "a `#[kernel]` function is a free function, not a method",
                ));
            }
            FnArg::Typed(t) => {
                if let Type::ImplTrait(_) = &*t.ty {
                    return Err(Error::new_spanned(
                        &t.ty,
                        "a `#[kernel]` parameter cannot be `impl Trait`: make it a generic \
                         parameter and list its instantiations in `instantiate(…)`",
                    ));
                }
            }
        }
    }
    Ok(())
}

fn parameter_name(p: &GenericParam) -> String {
    match p {
        GenericParam::Type(t) => t.ident.to_string(),
        GenericParam::Const(c) => c.ident.to_string(),
        GenericParam::Lifetime(l) => l.lifetime.to_string(),
    }
}

/// The first of `names` that occurs as an identifier in `tokens`.
fn mentions(tokens: TokenStream, names: &[String]) -> Option<String> {
    tokens.into_iter().find_map(|tree| match tree {
        TokenTree::Ident(ident) => names.iter().find(|n| ident == n.as_str()).cloned(),
        TokenTree::Group(group) => mentions(group.stream(), names),
        _ => None,
    })
}

/// `name_A_B` for the arguments `A`, `B` (each a path's last segment or an integer); other
/// arguments need a name given.
fn default_name(name: &Ident, arguments: &[GenericArgument]) -> syn::Result<Ident> {
    let mut exported = name.to_string();
    for argument in arguments {
        let part = match argument {
            GenericArgument::Type(Type::Path(p)) if p.qself.is_none() => p
                .path
                .segments
                .last()
                .filter(|s| s.arguments.is_none())
                .map(|s| s.ident.to_string()),
            GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            })) => Some(i.base10_digits().to_string()),
            _ => None,
        };
        let Some(part) = part else {
            return Err(Error::new_spanned(
                argument,
                format!(
                    "name this entry point: `instantiate(NAME = {})` (a default name is made only \
                     of simple type paths and integers)",
                    quote!(#argument)
                ),
            ));
        };
        exported.push('_');
        exported.push_str(&part);
    }
    Ok(Ident::new(&exported, name.span()))
}

/// The launch descriptor's constant for entry point `entry`: its name in upper case.
fn descriptor_name(entry: &Ident) -> Ident {
    Ident::new(&entry.to_string().to_uppercase(), entry.span())
}

/// The lines appended to the kernel's documentation: its PTX entry points.
fn entry_note(
    names: &[(String, Vec<GenericArgument>)],
    parameters: &[String],
    cfg: Option<&TokenStream>,
) -> Vec<String> {
    let mut lines = vec!["# PTX entry points".to_string(), String::new()];
    for (entry, arguments) in names {
        let bound: Vec<String> = parameters
            .iter()
            .zip(arguments)
            .map(|(p, a)| format!("{p} = {}", quote!(#a)))
            .collect();
        let descriptor = entry.to_uppercase();
        if bound.is_empty() {
            lines.push(format!("- `{entry}` (launch description [`{descriptor}`])"));
        } else {
            lines.push(format!(
                "- `{entry}`: {} (launch description [`{descriptor}`])",
                bound.join(", ")
            ));
        }
    }
    if let Some(cfg) = cfg {
        lines.push(String::new());
        lines.push(format!("(compiled where `cfg({cfg})` holds)"));
    }
    lines
}

#[cfg(test)]
mod tests;
