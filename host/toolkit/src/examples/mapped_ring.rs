//! The host↔device ring of `gpu-kernels` in mapped memory, the guide's `host_device_queue`
//! example: the kernel `ring_producer` pushes into a bounded ring while the host pops, the
//! host's side written once ([`Consumer::step`]) and run three ways — on host threads
//! ([`on_host_threads`]), in the simulator ([`in_simulator`]) and on a GPU
//! ([`gpu::run_ring`](crate::gpu::run_ring)) — on one [`MappedSlice`] of the ring's words.

use crate::mapped::{MappedAccess, MappedSlice};
use crate::sim::{Arg, HostStatus, Launch, Outcome, SimError, Simulator};
use gpu_kernels::kernels::RING_SLOTS;
use scoped_atomics::Ordering::{Acquire, Relaxed, Release};

/// The ring's words (`gpu_kernels::kernels::Ring`, `#[repr(C)]`, as `u32`s): the producer's
/// count, the consumer's count, then the slots.
pub const HEAD: usize = 0;
/// See [`HEAD`].
pub const TAIL: usize = 1;
/// See [`HEAD`].
pub const SLOTS: usize = 2;
/// The ring's size in words.
pub const WORDS: usize = SLOTS + RING_SLOTS;

/// The host's side of the ring: pops `count` values, one per step when one is there.
///
/// ```
/// use scoped_atomics_host::examples::mapped_ring::{Consumer, HEAD, SLOTS, WORDS};
/// use scoped_atomics_host::mapped::{MappedSlice, poll};
/// // A ring the "device" filled with two values before the host looks.
/// let mut words = [0u32; WORDS];
/// (words[HEAD], words[SLOTS], words[SLOTS + 1]) = (2, 7, 8);
/// let ring = MappedSlice::new(&words);
/// let mut consumer = Consumer::new(2);
/// poll(std::time::Duration::from_secs(1), || consumer.step(&mut &ring)).unwrap();
/// assert_eq!(consumer.received, [7, 8]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Consumer {
    /// Values to pop.
    pub count: u32,
    /// Values popped so far, in order.
    pub received: Vec<u32>,
}

impl Consumer {
    /// A consumer of `count` values.
    ///
    /// ```
    /// let c = scoped_atomics_host::examples::mapped_ring::Consumer::new(3);
    /// assert!(c.received.is_empty());
    /// ```
    pub fn new(count: u32) -> Self {
        Consumer {
            count,
            received: Vec::with_capacity(count as usize),
        }
    }

    /// One step: if the device has published a value (`head` read with `Acquire`), read it
    /// plainly and hand its slot back (`tail` stored with `Release`); `Done` after `count`.
    ///
    /// ```
    /// use scoped_atomics_host::examples::mapped_ring::{Consumer, WORDS};
    /// use scoped_atomics_host::{mapped::MappedSlice, sim::HostStatus};
    /// let ring = MappedSlice::new(&[0u32; WORDS]);
    /// // Nothing published: nothing popped.
    /// assert_eq!(Consumer::new(1).step(&mut &ring), HostStatus::Continue);
    /// ```
    pub fn step(&mut self, ring: &mut impl MappedAccess<u32>) -> HostStatus {
        if self.received.len() == self.count as usize {
            return HostStatus::Done;
        }
        let tail = ring.load(TAIL, Relaxed); // only this thread writes it
        if ring.load(HEAD, Acquire) == tail {
            return HostStatus::Continue; // empty
        }
        // SAFETY: the producer wrote this slot before releasing `head`, which the load above
        // acquired, and writes it again only after the release of `tail` below.
        let value = unsafe { ring.read(SLOTS + tail as usize % RING_SLOTS) };
        ring.store(TAIL, tail.wrapping_add(1), Release);
        self.received.push(value);
        if self.received.len() == self.count as usize {
            HostStatus::Done
        } else {
            HostStatus::Continue
        }
    }
}

/// On host threads: the executor runs `ring_producer` (one thread pushing `first, first + 1,
/// …`) on the ring's memory while this thread pops `count` values with [`Consumer::step`] on
/// the same [`MappedSlice`]; gives up after `timeout`.
///
/// ```
/// use scoped_atomics_host::examples::mapped_ring::on_host_threads;
/// let got = on_host_threads(100, 20, std::time::Duration::from_secs(30)).unwrap();
/// assert_eq!(got, (100..120).collect::<Vec<u32>>());
/// ```
#[cfg(not(loom))]
pub fn on_host_threads(
    first: u32,
    count: u32,
    timeout: std::time::Duration,
) -> Result<Vec<u32>, String> {
    use scoped_atomics::kernel::Dim3;
    let ring = MappedSlice::new(&[0u32; WORDS]);
    // The kernel's argument: the ring's address (a plain integer is `Send`).
    let at = ring.kernel_ptr() as usize;
    let mut consumer = Consumer::new(count);
    std::thread::scope(|s| {
        let producer = s.spawn(move || {
            crate::executor::launch(Dim3::x(1), Dim3::x(1), move || {
                // SAFETY: a live ring (the scope outlives the launch) with the `Ring` layout;
                // this is its only producer, the calling thread its only consumer.
                unsafe { gpu_kernels::kernels::ring_producer(at as *mut _, first, count) }
            })
        });
        let popped = crate::mapped::poll(timeout, || consumer.step(&mut &ring));
        let launched = producer
            .join()
            .map_err(|_| "the producer panicked".to_string())?;
        launched.map_err(|e| e.to_string())?;
        popped.map_err(|e| e.to_string())
    })?;
    Ok(consumer.received)
}

/// In the simulator: `ring_producer` of `sim`'s PTX (a block of 32 threads, thread 0 pushing)
/// with the ring as buffer 0, and [`Consumer::step`] as a host thread; the outcome (findings,
/// the ring's final words) and the values popped.
///
/// ```
/// use scoped_atomics_host::examples::mapped_ring::in_simulator;
/// use scoped_atomics_host::sim::{EXAMPLE_PTX, Simulator};
/// // With the gpu-kernels module (`cargo host ptx`): `(outcome, values)`; a module without
/// // the kernel is refused by name.
/// let sim = Simulator::new(EXAMPLE_PTX).unwrap();
/// let e = in_simulator(&sim, 100, 20, 1).unwrap_err();
/// assert!(e.to_string().contains("ring_producer"));
/// ```
pub fn in_simulator(
    sim: &Simulator,
    first: u32,
    count: u32,
    seed: u64,
) -> Result<(Outcome, Vec<u32>), SimError> {
    let mut ring = MappedSlice::new(&[0u32; WORDS]);
    let consumer = std::sync::Arc::new(std::sync::Mutex::new(Consumer::new(count)));
    let shared = consumer.clone();
    let host = ring.sim_host_thread(0, move |q| shared.lock().unwrap().step(q));
    let mut l = Launch::new(
        [1, 1, 1],
        [32, 1, 1],
        vec![Arg::Ptr(0, 0), Arg::U32(first), Arg::U32(count)],
    );
    l.buffers = vec![ring.sim_buffer()];
    l.seed = seed;
    let out = sim.kernel("ring_producer")?.launch(&l, vec![host])?;
    let got = consumer.lock().unwrap().received.clone();
    Ok((out, got))
}
