// The libcu++ twins of kernels.rs (kernel-cost report): `cuda::atomic_ref` with the same
// orders and scopes, the same loops, names and parameters.
#include <cuda/atomic>

using block_ref = cuda::atomic_ref<unsigned, cuda::thread_scope_block>;
template <class T> using device_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;

extern "C" __global__ void histogram(const unsigned* input, unsigned n, unsigned* hist) {
  __shared__ unsigned bins[256];
  unsigned t = threadIdx.x;
  for (unsigned b = t; b < 256; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    block_ref(bins[input[i] & 255]).fetch_add(1, cuda::memory_order_relaxed);
  __syncthreads();
  for (unsigned b = t; b < 256; b += blockDim.x)
    device_ref<unsigned>(hist[b]).fetch_add(bins[b], cuda::memory_order_relaxed);
}

template <class T> __device__ void block_reduce(const T* input, unsigned n, T* out) {
  __shared__ T partial[256];
  unsigned t = threadIdx.x;
  T sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) sum += input[i];
  partial[t] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] = partial[t] + partial[t + s];
    __syncthreads();
  }
  if (t == 0) device_ref<T>(*out).fetch_add(partial[0], cuda::memory_order_relaxed);
}

extern "C" __global__ void block_reduce_f32(const float* input, unsigned n, float* out) {
  block_reduce(input, n, out);
}

extern "C" __global__ void block_reduce_u32(const unsigned* input, unsigned n, unsigned* out) {
  block_reduce(input, n, out);
}

extern "C" __global__ void ticket_lock(unsigned* next, unsigned* serving, unsigned* counter, unsigned n) {
  device_ref<unsigned> nx(*next), sv(*serving);
  for (unsigned k = 0; k < n; ++k) {
    unsigned ticket = nx.fetch_add(1, cuda::memory_order_relaxed);
    while (sv.load(cuda::memory_order_acquire) != ticket) {}
    *counter = *counter + 1;
    sv.store(ticket + 1, cuda::memory_order_release);
  }
}

extern "C" __global__ void hash_insert(unsigned* keys, unsigned* values, unsigned mask, const unsigned* input, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned key = input[i];
  unsigned slot = (key * 0x9e3779b1u) & mask;
  for (;;) {
    unsigned expected = 0xffffffffu;
    if (device_ref<unsigned>(keys[slot]).compare_exchange_strong(expected, key, cuda::memory_order_relaxed, cuda::memory_order_relaxed)) break;
    if (expected == key) break;
    slot = (slot + 1) & mask;
  }
  values[slot] = i;
}

extern "C" __global__ void message_passing(unsigned* data, unsigned* flag, unsigned* out, unsigned n) {
  device_ref<unsigned> f(*flag);
  unsigned t = threadIdx.x;
  if (blockIdx.x == 0) {
    for (unsigned i = t; i < n; i += blockDim.x) data[i] = i * 3;
    __syncthreads();
    if (t == 0) f.store(1, cuda::memory_order_release);
  } else {
    if (t == 0) while (f.load(cuda::memory_order_acquire) == 0) {}
    __syncthreads();
    for (unsigned i = t; i < n; i += blockDim.x) out[(blockIdx.x - 1) * n + i] = data[i];
  }
}

extern "C" __global__ void polling_loop(unsigned* flag, const unsigned* scale, unsigned* out, unsigned n) {
  device_ref<unsigned> f(*flag);
  unsigned sum = 0;
  for (unsigned k = 0; k < n; ++k) sum += f.load(cuda::memory_order_relaxed) * *scale;
  *out = sum;
}
