//! What a build may reach: imports stay inside the project root (the folder of the files named,
//! or `--root`) and name `.tool` sources, so that checking an untrusted change never reads, or
//! prints, a file outside it; and a set of files is one build, so that an import cycle among them
//! is reported however the files are named.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tooldef");

/// What the files outside the project hold: no output may quote it.
const SECRET: &str = "SECRET-7f3a9c";

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run tooldef")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Every way out of the project is refused at the import, unread, with the secret in no output:
/// a climb out by `..`, an absolute path, a file that is not a source, the process's own
/// environment, and a link inside the project that points out.
#[cfg(unix)]
#[test]
fn imports_never_read_outside_the_project() {
    let dir = tempfile::tempdir().expect("temp dir");
    let secret = dir.path().join("secret");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&secret).expect("mkdir");
    std::fs::create_dir_all(project.join("api")).expect("mkdir");
    // A secret in a `.tool` file, and in other files: each a syntax error if read as a source.
    std::fs::write(secret.join("key.tool"), format!("{SECRET}\n")).expect("write");
    std::fs::write(secret.join("key.txt"), format!("{SECRET}\n")).expect("write");
    std::os::unix::fs::symlink(secret.join("key.tool"), project.join("api/link.tool"))
        .expect("symlink");
    let outside = secret.join("key.tool");
    let paths = [
        "../../secret/key.tool".to_string(),
        "../../secret/key.txt".to_string(),
        outside.display().to_string(),
        "/proc/self/environ".to_string(),
        "./link.tool".to_string(),
    ];
    for path in &paths {
        let main = format!("import {{ Key }} from \"{path}\"\n/// T.\ntool t {{ k: Key }}\n");
        std::fs::write(project.join("api/main.tool"), main).expect("write");
        for command in [
            vec!["check", "api/main.tool"],
            vec!["check", "api"],
            vec!["compile", "api/main.tool"],
            vec!["build", "api", "--target", "openai", "--out-dir", "out"],
            vec!["lock", "api", "--lock", "tools.lock"],
        ] {
            let o = run(&project, &command);
            let all = text(&o);
            assert_ne!(o.status.code(), Some(0), "{path}, {command:?}: {all}");
            assert!(
                !all.contains(SECRET),
                "{path}, {command:?} printed the secret: {all}"
            );
            assert!(
                all.contains("unresolved-import"),
                "{path}, {command:?}: {all}"
            );
        }
    }
    // A wider root lets the import through, and then the file is read (its content is a
    // syntax error: it is quoted, as a source of the project).
    std::fs::write(
        project.join("api/main.tool"),
        "import { Key } from \"../../secret/key.tool\"\n/// T.\ntool t { k: Key }\n",
    )
    .expect("write");
    let top = dir.path().to_str().expect("utf-8 path");
    let o = run(&project, &["check", "--root", top, "api/main.tool"]);
    assert!(text(&o).contains(SECRET), "{}", text(&o));
}

/// Files that import each other in a circle, named together (as a folder or one by one), are an
/// error and exit 1; the circle was passed with 0 errors when each file was checked itself.
/// Circles that double in length are each reported once, at one import.
#[test]
fn a_circle_among_the_files_named_is_an_error() {
    for n in [2, 4, 8, 16, 32, 64] {
        let dir = tempfile::tempdir().expect("temp dir");
        for i in 0..n {
            let next = (i + 1) % n;
            std::fs::write(
                dir.path().join(format!("f{i:02}.tool")),
                format!("import {{ T{next} }} from \"./f{next:02}.tool\"\ntype T{i} = {{ v?: T{next} }}\n"),
            )
            .expect("write");
        }
        let names: Vec<String> = (0..n).map(|i| format!("f{i:02}.tool")).collect();
        let mut by_name = vec!["check", "--format", "json"];
        by_name.extend(names.iter().map(String::as_str));
        for args in [vec!["check", "--format", "json", "."], by_name] {
            let o = run(dir.path(), &args);
            assert_eq!(
                o.status.code(),
                Some(1),
                "{n} files, {args:?}: {}",
                text(&o)
            );
            let json: serde_json::Value =
                serde_json::from_slice(&o.stdout).expect("json diagnostics");
            let cycles = json
                .as_array()
                .expect("an array")
                .iter()
                .filter(|d| d["code"] == "import-cycle")
                .count();
            assert_eq!(cycles, 1, "{n} files, {args:?}: {json}");
        }
    }
}
