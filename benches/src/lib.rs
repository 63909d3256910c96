//! Benchmarks of `scoped-atomics`: criterion on the host against `core::sync::atomic` and
//! `std::sync`, and a static PTX/SASS cost model against libcu++ on the device.
