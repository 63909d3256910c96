//! Issue 29, item 4, checked from outside: `shfl.sync` in the simulator follows the PTX ISA's
//! pseudo-code for *any* `c` operand — every clamp value `c[4:0]`, segment masks `c[12:8]` that
//! are not of the form `32 - width` CUDA's intrinsics pass, and the bits of `c` and `b` that do
//! not count — and sets the predicate `p`. (`host/checks`' `warp_differential` compares the host
//! emulation with the simulator for the intrinsics' `c`; this pins the simulator to the ISA.)

use ptx_sim::{Arg, Launch, Mode, Simulator};

/// The PTX ISA's `shfl.sync` pseudo-code, written out here independently: the source lane and
/// `p` of `lane` for `mode`, `b` and `c`.
fn isa(mode: &str, lane: i32, b: u32, c: u32) -> (i32, bool) {
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let segmask = ((c >> 8) & 31) as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, p) = match mode {
        "up" => (lane - bval, lane - bval >= max_lane),
        "down" => (lane + bval, lane + bval <= max_lane),
        "bfly" => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    (if p { j } else { lane }, p)
}

#[test]
fn shuffles_follow_the_isa_for_every_clamp_and_segment_mask() {
    let mut operands = Vec::new();
    for segmask in [0u32, 1, 3, 5, 7, 15, 16, 24, 31] {
        for clamp in 0..32u32 {
            for b in [0u32, 1, 3, 5, 16, 31, 33, 63] {
                // Bits 5..7 and 13.. of `c` do not count.
                let junk = if (clamp + b) % 3 == 0 { 0xffff_e0e0 } else { 0 };
                operands.push((b, (segmask << 8) | clamp | junk));
            }
        }
    }
    let n = operands.len();
    let table: Vec<u8> = operands
        .iter()
        .flat_map(|&(b, c)| [b.to_le_bytes(), c.to_le_bytes()].concat())
        .collect();
    for mode in ["idx", "up", "down", "bfly"] {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 out, .param .u64 tab, .param .u32 n)\n{{\n\
             \t.reg .b32 %r<12>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<3>;\n\
             \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n\
             \tld.param.u64 %rd4, [tab];\n\tcvta.to.global.u64 %rd4, %rd4;\n\
             \tld.param.u32 %r10, [n];\n\tmov.u32 %r1, %tid.x;\n\
             \tmad.lo.u32 %r3, %r1, 7, 3;\n\tmov.u32 %r2, 0;\nL:\n\
             \tmul.wide.u32 %rd2, %r2, 8;\n\tadd.s64 %rd5, %rd4, %rd2;\n\
             \tld.global.u32 %r6, [%rd5];\n\tld.global.u32 %r7, [%rd5+4];\n\
             \tshfl.sync.{mode}.b32 %r4|%p1, %r3, %r6, %r7, -1;\n\
             \tselp.u32 %r8, 65536, 0, %p1;\n\tor.b32 %r4, %r4, %r8;\n\
             \tmad.lo.u32 %r5, %r2, 32, %r1;\n\tmul.wide.u32 %rd2, %r5, 4;\n\
             \tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r4;\n\
             \tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p2, %r2, %r10;\n\t@%p2 bra L;\n\tret;\n}}\n"
        );
        let k = Simulator::new(&ptx).unwrap().kernel("k").unwrap();
        let mut launch = Launch::new(
            [1, 1, 1],
            [32, 1, 1],
            vec![
                Arg::Buffer(vec![0; n * 32 * 4]),
                Arg::Buffer(table.clone()),
                Arg::U32(n as u32),
            ],
        );
        launch.mode = Mode::WarpLockstep;
        launch.hang_bound = 100_000_000;
        let out = k.launch(&launch, Vec::new()).unwrap();
        assert!(
            out.findings.is_empty() && out.completed,
            "{mode}: {:?}",
            out.findings
        );
        let mut wrong = Vec::new();
        for (i, &(b, c)) in operands.iter().enumerate() {
            for lane in 0..32 {
                let at = (i * 32 + lane) * 4;
                let v = u32::from_le_bytes(out.buffers[0][at..at + 4].try_into().unwrap());
                let got = ((v & 0xffff) as i32, v >> 16 != 0);
                let (source, p) = isa(mode, lane as i32, b, c);
                if got != (source * 7 + 3, p) {
                    wrong.push(format!(
                        "{mode} b={b} c={c:#x} lane {lane}: {got:?}, ISA ({source}, {p})"
                    ));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "{} differences, first: {}",
            wrong.len(),
            wrong[0]
        );
    }
}
