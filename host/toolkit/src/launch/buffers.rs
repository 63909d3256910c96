//! A launch's buffers: typed handles ([`Buffer`]), the type-erased contents a launch keeps and
//! copies for each run, and the typed results of a run ([`Buffers`]).

use bytemuck::Pod;
use std::any::Any;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Index;

/// The contents of one buffer of a launch, whatever its element type: a `Vec<T>`.
pub(super) trait Contents: Send + Sync + 'static {
    /// A fresh copy (each run starts from the launch's initial contents).
    fn duplicate(&self) -> Box<dyn Contents>;
    /// The bytes, in the host's (little-endian) layout of `T`.
    fn bytes(&self) -> &[u8];
    /// The bytes, to overwrite with a simulator's or a GPU's results.
    fn bytes_mut(&mut self) -> &mut [u8];
    /// The first element's address, for a kernel thread to write through.
    fn base(&mut self) -> *mut u8;
    /// The number of elements.
    fn len(&self) -> usize;
    /// The element type's name, for messages.
    fn element(&self) -> &'static str;
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Pod + Send + Sync> Contents for Vec<T> {
    fn duplicate(&self) -> Box<dyn Contents> {
        Box::new(self.clone())
    }
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(self)
    }
    fn base(&mut self) -> *mut u8 {
        self.as_mut_ptr().cast()
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn element(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

impl Clone for Box<dyn Contents> {
    fn clone(&self) -> Self {
        self.duplicate()
    }
}

/// A typed handle to a buffer of a [`Launch`](super::Launch) (from
/// [`buffer`](super::Launch::buffer) or [`allocation`](super::Launch::allocation)): what the
/// results of a run are read by, as `&[T]` ([`Buffers`]).
///
/// ```
/// use scoped_atomics::kernel::Dim3;
/// use scoped_atomics_host::launch::Launch;
/// #[scoped_atomics::kernel]
/// pub fn nothing(_cells: *mut u16) {}
///
/// let mut launch = Launch::new(NOTHING, Dim3::x(1), Dim3::x(1));
/// let cells = launch.buffer(vec![7u16; 3]);
/// assert_eq!(cells.len(), 3);
/// // SAFETY: `nothing` touches nothing.
/// let out = unsafe { launch.on_host_threads() }.unwrap();
/// assert_eq!(out[cells], [7, 7, 7]);
/// ```
pub struct Buffer<T> {
    pub(super) launch: u64,
    pub(super) index: usize,
    pub(super) len: usize,
    pub(super) element: PhantomData<fn() -> T>,
}

impl<T> Buffer<T> {
    /// The number of elements.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *mut u8) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// assert_eq!(launch.allocation(vec![0u64; 5]).len(), 5);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *mut u8) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// assert!(launch.allocation(Vec::<u32>::new()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T> Clone for Buffer<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Buffer<T> {}

impl<T> PartialEq for Buffer<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.launch, self.index) == (other.launch, other.index)
    }
}
impl<T> Eq for Buffer<T> {}

impl<T> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Buffer<{}>(#{} of launch {}, {} elements)",
            std::any::type_name::<T>(),
            self.index,
            self.launch,
            self.len
        )
    }
}

/// The buffers after a run, read through their handles: `out[handle]` is the buffer's
/// elements as `&[T]`; [`take`](Buffers::take) moves one out as a `Vec<T>`.
///
/// ```
/// use scoped_atomics::kernel::{index_1d, Dim3};
///
/// /// Thread `i` writes `i * i` to `squares[i]`.
/// ///
/// /// # Safety
/// /// `squares` holds one `u64` per thread.
/// #[scoped_atomics::kernel]
/// pub unsafe fn square(squares: *mut u64) {
///     let i = index_1d();
///     // SAFETY: one element per thread, each written by its own thread only.
///     unsafe { squares.add(i).write((i * i) as u64) }
/// }
///
/// let mut launch = scoped_atomics_host::launch::Launch::new(SQUARE, Dim3::x(2), Dim3::x(4));
/// let squares = launch.buffer(vec![0u64; 8]);
/// // SAFETY: one element per thread of the grid.
/// let mut out = unsafe { launch.on_host_threads() }.unwrap();
/// assert_eq!(out[squares][3], 9);
/// assert_eq!(out.take(squares), (0..8).map(|i| i * i).collect::<Vec<u64>>());
/// ```
pub struct Buffers {
    pub(super) launch: u64,
    pub(super) contents: Vec<Option<Box<dyn Contents>>>,
}

impl Buffers {
    /// Buffer `buffer`'s elements. Panics for a handle of another launch or one already
    /// [taken](Buffers::take).
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *mut u8) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// let bytes = launch.buffer(vec![1u8, 2]);
    /// // SAFETY: `k` does nothing.
    /// let out = unsafe { launch.on_host_threads() }.unwrap();
    /// assert_eq!(out.get(bytes), &[1, 2]);
    /// ```
    pub fn get<T: Pod>(&self, buffer: Buffer<T>) -> &[T] {
        self.slot(buffer)
            .as_ref()
            .unwrap_or_else(|| panic!("{buffer:?} was taken out of these results"))
            .as_any()
            .downcast_ref::<Vec<T>>()
            .unwrap_or_else(|| panic!("{buffer:?} names another buffer in these results"))
    }

    /// Moves buffer `buffer`'s elements out. Panics for a handle of another launch or one
    /// already taken.
    ///
    /// ```
    /// # use scoped_atomics::kernel::Dim3;
    /// # #[scoped_atomics::kernel]
    /// # pub fn k(_: *mut u8) {}
    /// let mut launch = scoped_atomics_host::launch::Launch::new(K, Dim3::x(1), Dim3::x(1));
    /// let words = launch.buffer(vec![5u32]);
    /// // SAFETY: `k` does nothing.
    /// let mut out = unsafe { launch.on_host_threads() }.unwrap();
    /// assert_eq!(out.take(words), vec![5]);
    /// ```
    pub fn take<T: Pod>(&mut self, buffer: Buffer<T>) -> Vec<T> {
        // Present and of type `T` (else a panic that says so), before it is moved out.
        let _ = self.get(buffer);
        let contents = self.contents[buffer.index]
            .take()
            .unwrap_or_else(|| panic!("{buffer:?} was taken out of these results already"));
        *contents
            .into_any()
            .downcast::<Vec<T>>()
            .unwrap_or_else(|_| panic!("{buffer:?} names another buffer in these results"))
    }

    fn slot<T>(&self, buffer: Buffer<T>) -> &Option<Box<dyn Contents>> {
        self.check(buffer);
        &self.contents[buffer.index]
    }

    fn check<T>(&self, buffer: Buffer<T>) {
        assert_eq!(
            buffer.launch, self.launch,
            "{buffer:?} is a handle of another launch than these results' (launch {})",
            self.launch
        );
        assert!(
            buffer.index < self.contents.len(),
            "{buffer:?} names a buffer added after these results' launch ran"
        );
    }
}

impl<T: Pod> Index<Buffer<T>> for Buffers {
    type Output = [T];

    fn index(&self, buffer: Buffer<T>) -> &[T] {
        self.get(buffer)
    }
}

impl fmt::Debug for Buffers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for contents in &self.contents {
            match contents {
                Some(c) => list.entry(&format_args!("[{}; {}]", c.element(), c.len())),
                None => list.entry(&format_args!("(taken)")),
            };
        }
        list.finish()
    }
}
