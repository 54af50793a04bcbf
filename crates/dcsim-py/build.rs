//! Records the git commit the extension is built from (`dcsim._core.__commit__`), so that an
//! installed dcsim, which carries no repository, can still say which sources made a report.
//! "unknown" when the sources are not a git checkout (e.g. built from an sdist).
//!
//! Also the SHA-256 of the engine's sources (`dcsim._core.__engine_sources__`): every file under
//! the two crates' `src/`, their manifests and the workspace's `Cargo.toml` and `Cargo.lock`
//! (the dependencies' versions: `rand` makes the random streams), by relative path. A sweep's
//! cache key holds it, so a run computed by other engine code is computed again; it is the same
//! on every machine that builds the same sources (the Dask workers' check).

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file under `dir`, recursively (none if it is missing).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// SHA-256 (hex) over (relative path, length, bytes) of the engine's sources, sorted by path.
fn engine_sources_hash(root: &Path) -> String {
    let mut files = Vec::new();
    for dir in ["crates/dcsim-core/src", "crates/dcsim-py/src"] {
        files_under(&root.join(dir), &mut files);
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    for f in ["Cargo.toml", "Cargo.lock", "crates/dcsim-core/Cargo.toml", "crates/dcsim-py/Cargo.toml"] {
        files.push(root.join(f));
        println!("cargo:rerun-if-changed={}", root.join(f).display());
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| (p.strip_prefix(root).unwrap_or(&p).to_string_lossy().replace('\\', "/"), p))
        .collect();
    named.sort();
    let mut h = Sha256::new();
    for (name, path) in named {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        h.update(name.as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

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
    println!("cargo:rustc-env=DCSIM_ENGINE_SOURCES={}", engine_sources_hash(&root));
}
