//! [`KernelEntry`]: what `#[kernel]` says about each PTX entry point it writes, so that one
//! launch description runs the kernel on host threads, under loom, in the simulator and on a
//! GPU (`scoped_atomics_host::launch`).

use core::fmt;

/// A kernel's PTX entry point as a launcher sees it: the exported name (what the simulator and a
/// GPU launch) and, on the host, the kernel function itself behind a call by argument bytes
/// (what host threads and loom run). `#[kernel]` writes one `pub const` of this type per entry
/// point, named after it in upper case (`histogram` → `HISTOGRAM`, `block_sum_block_scope_bug`
/// → `BLOCK_SUM_BLOCK_SCOPE_BUG`), beside the function; `scoped_atomics_host::launch::Launch`
/// takes it.
///
/// ```
/// use scoped_atomics::kernel::{KernelEntry, index_1d};
/// use scoped_atomics::{AtomicRef, Device, Ordering};
///
/// /// Adds `amount` to `*total`.
/// ///
/// /// # Safety
/// /// `total` is valid for atomic `u32` access.
/// #[scoped_atomics::kernel]
/// pub unsafe fn add(total: *mut u32, amount: u32) {
///     // SAFETY: the caller's contract.
///     unsafe { AtomicRef::<u32, Device>::from_ptr(total) }.add(amount, Ordering::Relaxed);
/// }
///
/// const ENTRY: KernelEntry = ADD;
/// assert_eq!(ENTRY.name(), "add");
/// // On the host: the parameters' sizes, in order (a pointer, a `u32`).
/// assert_eq!(ENTRY.param_sizes(), &[8, 4]);
/// ```
#[derive(Clone, Copy)]
pub struct KernelEntry {
    name: &'static str,
    #[cfg(not(target_arch = "nvptx64"))]
    param_sizes: &'static [usize],
    #[cfg(not(target_arch = "nvptx64"))]
    run: unsafe fn(&[&[u8]]),
}

impl KernelEntry {
    /// The entry point's exported PTX name (`.entry NAME`): what the simulator and a GPU load.
    ///
    /// ```
    /// #[scoped_atomics::kernel(instantiate(sum_block = scoped_atomics::Block))]
    /// pub fn sum<S: scoped_atomics::Scope>(total: *mut u32) {}
    /// assert_eq!(SUM_BLOCK.name(), "sum_block");
    /// ```
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The size in bytes of each parameter, in order (on the host, where pointers have the
    /// device's 8 bytes): what a launch's arguments are checked against.
    ///
    /// ```
    /// #[scoped_atomics::kernel]
    /// pub fn k(input: *const u32, len: usize, scale: f32, flag: u8) {}
    /// assert_eq!(K.param_sizes(), &[8, 8, 4, 1]);
    /// ```
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn param_sizes(&self) -> &'static [usize] {
        self.param_sizes
    }

    /// Whether `arguments` (each parameter's bytes, in order) fit the parameters: as many, each
    /// of its parameter's size.
    ///
    /// ```
    /// use scoped_atomics::kernel::ArgumentMismatch;
    /// #[scoped_atomics::kernel]
    /// pub fn k(len: usize, scale: f32) {}
    /// let (len, scale) = (3usize.to_ne_bytes(), 1.5f32.to_ne_bytes());
    /// assert_eq!(K.check_arguments(&[&len, &scale]), Ok(()));
    /// assert_eq!(
    ///     K.check_arguments(&[&len]),
    ///     Err(ArgumentMismatch::Count { kernel: "k", given: 1, parameters: 2 })
    /// );
    /// let e = K.check_arguments(&[&len, &len]).unwrap_err();
    /// assert_eq!(e.to_string(), "argument 1 of kernel `k` has 8 bytes, its parameter 4");
    /// ```
    #[cfg(not(target_arch = "nvptx64"))]
    pub fn check_arguments(&self, arguments: &[&[u8]]) -> Result<(), ArgumentMismatch> {
        if arguments.len() != self.param_sizes.len() {
            return Err(ArgumentMismatch::Count {
                kernel: self.name,
                given: arguments.len(),
                parameters: self.param_sizes.len(),
            });
        }
        for (index, (argument, &size)) in arguments.iter().zip(self.param_sizes).enumerate() {
            if argument.len() != size {
                return Err(ArgumentMismatch::Size {
                    kernel: self.name,
                    index,
                    given: argument.len(),
                    parameter: size,
                });
            }
        }
        Ok(())
    }

    /// Calls the kernel function on this thread with `arguments`, each parameter's bytes in
    /// order (native byte order; a pointer as its address), as the PTX entry point would be
    /// called with them: what host-thread and loom launches run on each kernel thread. Panics
    /// if the arguments do not fit ([`check_arguments`](KernelEntry::check_arguments)).
    ///
    /// # Safety
    /// Each argument's bytes are a valid value of its parameter's type (a pointer argument
    /// points where the kernel may use it: the bytes of a pointer written as a pointer, so it
    /// keeps its provenance), and the call meets the kernel function's own contract (its
    /// `# Safety`), called by every thread of a launch as the launch's hooks say
    /// (`kernel::emulation`).
    ///
    /// ```
    /// use scoped_atomics::kernel::emulation::{enter, leave, BlockContext, ThreadContext};
    /// use scoped_atomics::kernel::Dim3;
    ///
    /// /// Writes `value` to `*out`.
    /// ///
    /// /// # Safety
    /// /// `out` is valid for a write.
    /// #[scoped_atomics::kernel]
    /// pub unsafe fn store(out: *mut u64, value: u64) {
    ///     // SAFETY: the caller's contract.
    ///     unsafe { out.write(value) }
    /// }
    ///
    /// let mut cell = 0u64;
    /// let mut pointer = [0u8; 8];
    /// // SAFETY: 8 bytes of room; the pointer written as a pointer.
    /// unsafe { pointer.as_mut_ptr().cast::<*mut u64>().write_unaligned(&mut cell) };
    /// # enter(ThreadContext { thread_idx: Dim3::x(0), block_idx: Dim3::x(0),
    /// #     block_dim: Dim3::x(1), grid_dim: Dim3::x(1), block: BlockContext::new(1) });
    /// // SAFETY: a valid pointer and a `u64`, as `store` takes them; one thread.
    /// unsafe { STORE.call(&[&pointer, &7u64.to_ne_bytes()]) };
    /// # leave();
    /// assert_eq!(cell, 7);
    /// ```
    #[cfg(not(target_arch = "nvptx64"))]
    pub unsafe fn call(&self, arguments: &[&[u8]]) {
        if let Err(e) = self.check_arguments(arguments) {
            panic!("{e}");
        }
        // SAFETY: the arguments fit the parameters (checked above); the rest is the caller's.
        unsafe { (self.run)(arguments) }
    }

    /// The host entry `#[kernel]` writes. Not API.
    ///
    /// ```
    /// # use scoped_atomics::kernel::KernelEntry;
    /// unsafe fn run(_: &[&[u8]]) {}
    /// assert_eq!(KernelEntry::__host("k", &[], run).name(), "k");
    /// ```
    #[doc(hidden)]
    #[cfg(not(target_arch = "nvptx64"))]
    pub const fn __host(
        name: &'static str,
        param_sizes: &'static [usize],
        run: unsafe fn(&[&[u8]]),
    ) -> KernelEntry {
        KernelEntry {
            name,
            param_sizes,
            run,
        }
    }

    /// The device entry `#[kernel]` writes (the name only: launches start on the host). Not API.
    #[doc(hidden)]
    #[cfg(target_arch = "nvptx64")]
    pub const fn __device(name: &'static str) -> KernelEntry {
        KernelEntry { name }
    }
}

impl fmt::Debug for KernelEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("KernelEntry");
        d.field("name", &self.name);
        #[cfg(not(target_arch = "nvptx64"))]
        d.field("param_sizes", &self.param_sizes);
        d.finish_non_exhaustive()
    }
}

/// Arguments that do not fit a kernel's parameters ([`KernelEntry::check_arguments`]).
///
/// ```
/// use scoped_atomics::kernel::ArgumentMismatch;
/// let e = ArgumentMismatch::Count { kernel: "histogram", given: 2, parameters: 3 };
/// assert_eq!(e.to_string(), "kernel `histogram` takes 3 arguments, 2 given");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgumentMismatch {
    /// Not as many arguments as parameters.
    Count {
        /// The entry point's name.
        kernel: &'static str,
        /// Arguments given.
        given: usize,
        /// Parameters of the kernel.
        parameters: usize,
    },
    /// An argument whose size is not its parameter's.
    Size {
        /// The entry point's name.
        kernel: &'static str,
        /// The argument's position (from 0).
        index: usize,
        /// Its size in bytes.
        given: usize,
        /// The parameter's size in bytes.
        parameter: usize,
    },
}

impl fmt::Display for ArgumentMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ArgumentMismatch::Count {
                kernel,
                given,
                parameters,
            } => write!(
                f,
                "kernel `{kernel}` takes {parameters} arguments, {given} given"
            ),
            ArgumentMismatch::Size {
                kernel,
                index,
                given,
                parameter,
            } => write!(
                f,
                "argument {index} of kernel `{kernel}` has {given} bytes, its parameter {parameter}"
            ),
        }
    }
}

impl core::error::Error for ArgumentMismatch {}

/// Reads parameter `index` of a host entry's arguments as a `T`. Not API.
///
/// # Safety
/// `arguments[index]` holds the bytes of a valid `T` (checked by size in [`KernelEntry::call`]).
///
/// ```
/// let bytes = 5u32.to_ne_bytes();
/// // SAFETY: four bytes of a `u32`.
/// assert_eq!(unsafe { scoped_atomics::kernel::__read_param::<u32>(&[&bytes], 0) }, 5);
/// ```
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe fn __read_param<T>(arguments: &[&[u8]], index: usize) -> T {
    let bytes = arguments[index];
    assert_eq!(bytes.len(), size_of::<T>(), "argument {index}'s size");
    // SAFETY: as many bytes as a `T`, a valid `T` by the caller's contract; read unaligned.
    unsafe { bytes.as_ptr().cast::<T>().read_unaligned() }
}

/// The parameter sizes of a kernel function, read from its signature: `#[kernel]` casts the
/// function to `unsafe fn(_, …)` and takes [`__KernelSignature::PARAM_SIZES`]. Not API.
///
/// ```
/// fn k(_: u8, _: *const u32) {}
/// let sizes = scoped_atomics::kernel::__param_sizes(k as unsafe fn(_, _));
/// assert_eq!(sizes, &[1, 8]);
/// ```
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub const fn __param_sizes<F: __KernelSignature>(function: F) -> &'static [usize] {
    core::mem::forget(function);
    F::PARAM_SIZES
}

/// A kernel function's signature as a function pointer type. Not API.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
#[diagnostic::on_unimplemented(
    message = "a `#[kernel]` function has at most 24 parameters",
    label = "this signature has more"
)]
pub trait __KernelSignature {
    /// The size of each parameter, in order.
    const PARAM_SIZES: &'static [usize];
}

macro_rules! signatures {
    ($($p:ident)*) => {
        #[cfg(not(target_arch = "nvptx64"))]
        impl<$($p),*> __KernelSignature for unsafe fn($($p),*) {
            const PARAM_SIZES: &'static [usize] = &[$(size_of::<$p>()),*];
        }
    };
}

signatures!();
signatures!(A);
signatures!(A B);
signatures!(A B C);
signatures!(A B C D);
signatures!(A B C D E);
signatures!(A B C D E F);
signatures!(A B C D E F G);
signatures!(A B C D E F G H);
signatures!(A B C D E F G H I);
signatures!(A B C D E F G H I J);
signatures!(A B C D E F G H I J K);
signatures!(A B C D E F G H I J K L);
signatures!(A B C D E F G H I J K L M);
signatures!(A B C D E F G H I J K L M N);
signatures!(A B C D E F G H I J K L M N O);
signatures!(A B C D E F G H I J K L M N O P);
signatures!(A B C D E F G H I J K L M N O P Q);
signatures!(A B C D E F G H I J K L M N O P Q R);
signatures!(A B C D E F G H I J K L M N O P Q R S);
signatures!(A B C D E F G H I J K L M N O P Q R S T);
signatures!(A B C D E F G H I J K L M N O P Q R S T U);
signatures!(A B C D E F G H I J K L M N O P Q R S T U V);
signatures!(A B C D E F G H I J K L M N O P Q R S T U V W);
signatures!(A B C D E F G H I J K L M N O P Q R S T U V W X);
