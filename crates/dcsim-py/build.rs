//! Records the git commit the extension is built from (`dcsim._core.__commit__`), so that an
//! installed dcsim, which carries no repository, can still say which sources made a report.
//! "unknown" when the sources are not a git checkout (e.g. built from an sdist).

use std::path::Path;
use std::process::Command;

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(root).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let commit = match git(&root, &["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&root, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c} (with uncommitted changes)")
            } else {
                c
            }
        }
        _ => "unknown".to_string(),
    };
    // Rebuild when HEAD moves or the index changes (a commit, a checkout, staged edits).
    if let Some(dir) = git(&root, &["rev-parse", "--absolute-git-dir"]) {
        let dir = Path::new(&dir);
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={}", dir.join(f).display());
        }
        if let Some(r) = git(&root, &["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={}", dir.join(r).display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=DCSIM_GIT_COMMIT={commit}");
}
