//! Issue 25, item 4: the warp operations of the kernel API on host threads — warp-synchronous
//! results over whole warps, segments (`width`), 64-bit values, repeated calls, a block's last
//! short warp — and the mask rules: a misuse panics naming the lanes.

use scoped_atomics::kernel::emulation::{BlockContext, ThreadContext, enter, leave};
use scoped_atomics::kernel::*;
use std::sync::Mutex;

/// Runs `body` on every thread of one block of `threads` threads; returns each thread's result
/// by linear index, or the first panic message.
fn block<R: Send>(threads: u32, body: impl Fn() -> R + Sync) -> Result<Vec<R>, String> {
    let context = BlockContext::new(threads);
    let results = Mutex::new(Vec::new());
    let panics = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..threads {
            let (context, body, results, panics) = (context.clone(), &body, &results, &panics);
            s.spawn(move || {
                enter(ThreadContext {
                    thread_idx: Dim3::new(t, 0, 0),
                    block_idx: Dim3::new(0, 0, 0),
                    block_dim: Dim3::x(threads),
                    grid_dim: Dim3::x(1),
                    block: context,
                });
                match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
                    Ok(r) => results.lock().unwrap().push((t, r)),
                    Err(e) => panics
                        .lock()
                        .unwrap()
                        .push(e.downcast_ref::<String>().cloned().unwrap_or_default()),
                }
                leave();
            });
        }
    });
    let panics = panics.into_inner().unwrap();
    if let Some(p) = panics.into_iter().next() {
        return Err(p);
    }
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(t, _)| *t);
    Ok(results.into_iter().map(|(_, r)| r).collect())
}

#[test]
fn shuffles_over_a_full_warp_and_in_segments() {
    let r = block(32, || {
        let lane = lane_id();
        (
            shfl_sync(FULL_WARP, lane * 3, 31 - lane, 32),
            shfl_sync(FULL_WARP, lane, 0, 8), // each segment of 8 reads its first lane
            shfl_up_sync(FULL_WARP, lane, 1, 16),
            shfl_down_sync(FULL_WARP, u64::from(lane) << 40, 4, 32),
            shfl_xor_sync(FULL_WARP, -(lane as i64), 16, 32),
        )
    })
    .unwrap();
    for (lane, &(idx, seg, up, down, xor)) in r.iter().enumerate() {
        let lane = lane as u32;
        assert_eq!(idx, (31 - lane) * 3);
        assert_eq!(seg, lane & !7);
        assert_eq!(up, if lane % 16 == 0 { lane } else { lane - 1 });
        assert_eq!(
            down,
            u64::from(if lane < 28 { lane + 4 } else { lane }) << 40
        );
        assert_eq!(xor, -((lane ^ 16) as i64));
    }
}

#[test]
fn votes_matches_and_reductions_over_a_full_warp_called_repeatedly() {
    let r = block(32, || {
        let lane = lane_id();
        let mut out = Vec::new();
        for round in 0..3u32 {
            out.push(ballot_sync(FULL_WARP, lane % (round + 2) == 0));
            out.push(u32::from(all_sync(FULL_WARP, lane < 32 - round)));
            out.push(u32::from(any_sync(FULL_WARP, lane == 31 - round)));
            out.push(match_any_sync(FULL_WARP, lane / 8));
            out.push(reduce_add_sync(FULL_WARP, lane + round));
            out.push(reduce_max_sync(FULL_WARP, lane) + reduce_min_sync(FULL_WARP, lane));
            out.push(reduce_or_sync(FULL_WARP, 1 << lane));
        }
        out
    })
    .unwrap();
    for (lane, out) in r.iter().enumerate() {
        for round in 0..3u32 {
            let o = &out[round as usize * 7..][..7];
            let ballot = (0..32)
                .filter(|l| l % (round + 2) == 0)
                .fold(0, |m, l| m | 1 << l);
            assert_eq!(o[0], ballot);
            assert_eq!(o[1], u32::from(round == 0));
            assert_eq!(o[2], 1);
            assert_eq!(o[3], 0xff << (lane / 8 * 8));
            assert_eq!(o[4], 496 + 32 * round);
            assert_eq!(o[5], 31);
            assert_eq!(o[6], u32::MAX);
        }
    }
}

#[test]
fn a_short_last_warp_has_its_lanes_and_sync_threads_count_counts_the_block() {
    let r = block(40, || {
        let lane = lane_id();
        let warp = thread_idx().x / WARP_SIZE;
        let members = activemask();
        let sum = reduce_add_sync(members, 1u32);
        let count = sync_threads_count(lane % 2 == 0);
        (
            warp,
            members,
            sum,
            count,
            sync_threads_and(true),
            sync_threads_or(false),
        )
    })
    .unwrap();
    assert_eq!(r[0], (0, u32::MAX, 32, 20, true, false));
    assert_eq!(r[39], (1, 0xff, 8, 20, true, false));
}

#[test]
fn a_mask_without_the_calling_lane_panics_naming_it() {
    let e = block(2, || ballot_sync(0b10, true)).unwrap_err();
    assert!(
        e.contains("ballot_sync: mask 0x00000002 does not include the calling thread's lane 0"),
        "{e}"
    );
}

#[test]
fn a_mask_with_lanes_the_warp_lacks_panics_naming_them() {
    // Warp 1 of a block of 40 has lanes 0..8.
    let e = block(40, || {
        if thread_idx().x >= 32 {
            shfl_sync(FULL_WARP, 1u32, 0, 32);
        }
    })
    .unwrap_err();
    assert!(
        e.contains("shfl_sync: mask 0xffffffff names lanes that do not exist"),
        "{e}"
    );
    assert!(
        e.contains("has 8 lanes (lanes 0xffffff00 are missing)"),
        "{e}"
    );
}

#[test]
fn reading_a_lane_outside_the_mask_panics_naming_both_lanes() {
    let e = block(4, || shfl_sync(0b0011 << (lane_id() & 2), lane_id(), 0, 32)).unwrap_err();
    // Lanes 2 and 3 both read lane 0; whichever panics first is reported (a race between the
    // two host threads), so either lane's message is right.
    assert!(
        ["lane 2", "lane 3"].iter().any(|lane| e.contains(&format!(
            "shfl_sync: {lane} reads lane 0, which is not in mask 0x0000000c"
        ))),
        "{e}"
    );
}

#[test]
fn a_width_that_is_not_a_power_of_two_panics() {
    let e = block(1, || shfl_xor_sync(1, 0u32, 1, 6)).unwrap_err();
    assert!(
        e.contains("width 6 is not a power of two of at most 32"),
        "{e}"
    );
}
