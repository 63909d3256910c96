//! Why a case costs more on our side, recognised from the code of both sides.

use benches::device_cost::Compared;

/// Why a case has more instructions on our side, recognised from the code of both sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reason {
    /// A 16-bit read-modify-write: our `atom.cas.b16` loop, which ptxas expands into a loop nest.
    NestedCas16,
    /// An 8-bit compare-exchange: libcu++ fails from its relaxed pre-load, we only from `atom.cas`.
    CasFailureOrdering,
    /// The `u8` kernel parameter: `ld.param.b8` into a 32-bit register, masked by ptxas.
    ByteParameter,
    /// Not recognised: see the listing.
    Unknown,
}

impl Reason {
    pub(crate) fn of(r: &Compared) -> Reason {
        let ours_ptx = r.ours.ptx.mm_sequence.join("\n");
        if ours_ptx.contains(".cas.b16") && r.case.op() != "compare_exchange" {
            return Reason::NestedCas16;
        }
        if r.case.op() == "compare_exchange" && fails_before_cas(&r.lib.ptx.mm_sequence) {
            return Reason::CasFailureOrdering;
        }
        let masks_byte = r
            .ours
            .sass
            .listing
            .iter()
            .any(|i| i.starts_with("ULOP3.LUT") && i.contains(", 0xff,"));
        let loads_byte = r.lib.sass.listing.iter().any(|i| i.starts_with("ULDC.U8"));
        if r.case.ty() == "u8" && masks_byte && loads_byte && r.ours.ptx.mm == r.lib.ptx.mm {
            return Reason::ByteParameter;
        }
        Reason::Unknown
    }

    pub(crate) fn title(self) -> &'static str {
        match self {
            Reason::NestedCas16 => {
                "16-bit read-modify-writes: ptxas expands `atom.cas.b16` into a loop"
            }
            Reason::CasFailureOrdering => {
                "8-bit compare_exchange: failure only from an ordered `atom.cas`"
            }
            Reason::ByteParameter => "the `u8` kernel parameter (an artifact of the probe)",
            Reason::Unknown => "not recognised",
        }
    }

    pub(crate) fn explanation(self) -> &'static str {
        match self {
            Reason::NestedCas16 => {
                "PTX has no 16-bit `atom.add`/`exch`/`min`, so ours is an `atom.cas.b16` loop over the \
                 16-bit location (9 PTX instructions against libcu++'s 23, the same number of \
                 memory-model instructions). But sm_80 and sm_90 have no 16-bit CAS in hardware \
                 either: ptxas expands each `atom.cas.b16` into its own 32-bit CAS loop on the \
                 containing word (with a plain `LD.E` of the word), so our loop becomes a loop nest \
                 in SASS: about 12 instructions and 1 load per call more than libcu++, which writes \
                 the 32-bit-word CAS loop itself in PTX. The remedy is in `atomics/` (PTX backend): \
                 do the 16-bit read-modify-writes other than `compare_exchange` as a 32-bit CAS \
                 loop on the containing word, as the 8-bit ones are; the price is accessing one \
                 location at two sizes in PTX (16-bit `ld`/`st`, 32-bit `atom`), which the crate \
                 avoids on purpose (the PTX memory model gives mixed-size accesses no guarantees) \
                 — though ptxas's own expansion already does so in SASS."
            }
            Reason::CasFailureOrdering => {
                "libcu++'s 8- and 16-bit `compare_exchange` (a 32-bit CAS loop) returns failure as \
                 soon as its initial *relaxed* load shows a different byte, without executing the \
                 `atom.cas`: a failed compare-exchange with failure order `acquire`/`seq_cst` then \
                 has no acquire semantics. Ours reports failure only from an `atom.cas` whose `.sem` \
                 covers the failure order (a rule of our PTX backend), so the byte comparison comes \
                 after the CAS: 1 PTX and 2 SASS instructions more, the same memory-model \
                 instructions."
            }
            Reason::ByteParameter => {
                "Not the atomic: rustc/LLVM loads the `u8` kernel parameter with `ld.param.b8` \
                 into a 32-bit register, which ptxas does as a 32-bit constant load plus a mask \
                 (`ULOP3.LUT …, 0xff`), where nvcc's `ld.param.u8` becomes a zero-extending \
                 `ULDC.U8`. Same memory-model instructions and loop; one SASS instruction more."
            }
            Reason::Unknown => "Not recognised by the generator; see the listing.",
        }
    }
}

/// Whether a CAS-loop sequence can leave before its first `atom` (a branch between the loop
/// label and the `atom`): failure reported from the preceding load.
fn fails_before_cas(sequence: &[String]) -> bool {
    let mut in_loop = false;
    for l in sequence {
        if l.ends_with(':') {
            in_loop = true;
        } else if l.starts_with("atom") {
            return false;
        } else if in_loop && l.contains("bra ") {
            return true;
        }
    }
    false
}
