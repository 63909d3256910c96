//! A cluster launch of PTX for a target before sm_90 (which has no thread-block clusters) is
//! refused, naming the module's `.target` and that clusters need sm_90: by `Kernel::launch`
//! (`SimError::BadInput`) and by the command line (`--cluster`, exit 2).

mod common;

use common::ptx_sim as sim;
use ptx_sim::{Arg, Launch, SimError, Simulator};

/// A kernel `k(u64 buffer)` that writes its block index to word 0 of the buffer's block slot.
fn module(target: &str) -> String {
    format!(
        ".version 7.8\n.target {target}\n.address_size 64\n\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, %ctaid.x;\n\
         \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
         \tst.global.u32 [%rd3], %r1;\n\tret;\n}}\n"
    )
}

fn launch(target: &str, cluster: Option<[u32; 3]>) -> Result<Vec<u8>, SimError> {
    let sim = Simulator::new(&module(target)).unwrap();
    let mut l = Launch::new([2, 1, 1], [1, 1, 1], vec![Arg::Buffer(vec![0; 8])]);
    l.cluster = cluster;
    let out = sim.kernel("k").unwrap().launch(&l, Vec::new())?;
    assert!(out.findings.is_empty(), "{:?}", out.findings);
    Ok(out.buffers[0].clone())
}

#[test]
fn a_cluster_launch_before_sm_90_is_refused_naming_the_target() {
    for target in ["sm_80", "sm_86, debug", "sm_70"] {
        let e = launch(target, Some([2, 1, 1])).expect_err(target);
        let SimError::BadInput(text) = &e else {
            panic!("{target}: {e:?}")
        };
        let shown = target.split(',').next().unwrap();
        assert!(text.contains(&format!("`.target` is {shown}")), "{text}");
        assert!(text.contains("need sm_90"), "{text}");
    }
    // Without a cluster shape, or on sm_90 and later, the launch runs.
    let written = [0, 0, 0, 0, 1, 0, 0, 0];
    assert_eq!(launch("sm_80", None).unwrap(), written);
    for target in ["sm_90", "sm_90a", "sm_100"] {
        assert_eq!(
            launch(target, Some([2, 1, 1])).unwrap(),
            written,
            "{target}"
        );
    }
}

#[test]
fn cli_cluster_before_sm_90_exits_2_naming_the_target() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let file = |target: &str| {
        let path = format!("{dir}/cluster_target_{target}.ptx");
        std::fs::write(&path, module(target)).unwrap();
        path
    };
    let (old, new) = (file("sm_80"), file("sm_90"));
    let args = |path: &str, cluster: &'static str| {
        let mut a = vec![
            path.to_string(),
            "--kernel".into(),
            "k".into(),
            "--grid".into(),
            "2".into(),
            "--block".into(),
            "1".into(),
            "--arg".into(),
            "buf:u32:2".into(),
        ];
        if !cluster.is_empty() {
            a.extend(["--cluster".to_string(), cluster.to_string()]);
        }
        a
    };
    let run = |a: Vec<String>| sim(&a.iter().map(String::as_str).collect::<Vec<_>>());
    for cluster in ["2", "1"] {
        let (code, out, err) = run(args(&old, cluster));
        assert_eq!(code, 2, "--cluster {cluster}: {out}{err}");
        assert!(
            err.contains("`--cluster") && err.contains("`.target` is sm_80"),
            "{err}"
        );
        assert!(err.contains("need sm_90"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, out, err) = run(args(&old, ""));
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(args(&new, "2"));
    assert_eq!(code, 0, "{out}{err}");
}
