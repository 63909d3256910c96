//! The PTX simulator: `ptx-sim`, re-exported, and [`corpus`], this project's example and
//! primitive kernels run in it at realistic sizes (the demo's simulator step).
//!
//! ```
//! use scoped_atomics_host::sim::{EXAMPLE_PTX, Simulator};
//! assert!(Simulator::new(EXAMPLE_PTX).unwrap().kernel("count").is_ok());
//! ```

pub use ptx_sim::*;

pub mod corpus;
