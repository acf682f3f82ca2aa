//! The `tooldef` binary against hostile I/O: writes that fail or are killed half way, outputs
//! that are inputs, unreadable files among readable ones, and inputs that never end.
//!
//! The guarantees: a file the command line writes holds either its old content or all of the new
//! one; an output that is one of the inputs is refused (exit 2) before anything is written; and
//! no input is read past its limit (10 MiB for sources, imports, responses and bindings, 4 MiB for
//! arguments), so `/dev/zero` or an endless pipe ends with exit 2 and a message naming the limit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_tooldef");

/// A tool file that compiles without warnings.
const TOOL: &str = "/// Says hello.\ntool greet {\n  /// Who to greet.\n  name: string\n}\n";

/// The same tool, badly laid out: `fmt` rewrites it.
const UNFORMATTED: &str =
    "/// Says hello.\ntool   greet {\n      /// Who to greet.\n name: string\n}\n";

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run tooldef")
}

/// Runs tooldef with an endless standard input (`y\n` forever, as `yes` writes it), fed until
/// tooldef closes its end of the pipe.
fn run_endless_stdin(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tooldef");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let chunk = "y\n".repeat(32 * 1024);
        // Ends when tooldef exits and the pipe breaks.
        while stdin.write_all(chunk.as_bytes()).is_ok() {}
    });
    let out = child.wait_with_output().expect("wait");
    feeder.join().expect("feeder");
    out
}

/// Runs tooldef under `sh` with a file-size limit of one block: writing more kills it (SIGXFSZ),
/// or, with `ignore_signal`, makes the write fail with EFBIG.
#[cfg(unix)]
fn run_with_file_size_limit(dir: &Path, args: &str, ignore_signal: bool) -> Output {
    let trap = if ignore_signal { "trap '' XFSZ; " } else { "" };
    Command::new("sh")
        .arg("-c")
        .arg(format!("{trap}ulimit -f 1 && exec \"$0\" {args}"))
        .arg(BIN)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sh")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A source of about 8 KiB that `fmt` rewrites: more than the one-block file-size limit.
fn big_unformatted() -> String {
    let mut s = String::from("/// Many fields.\ntool big {\n");
    for i in 0..300 {
        s.push_str(&format!("      /// Field {i}.\n f{i}: string\n"));
    }
    s.push_str("}\n");
    s
}

fn temp() -> TempDir {
    tempfile::tempdir().expect("temp dir")
}

// Writes that cannot lose data.

#[cfg(unix)]
#[test]
fn fmt_killed_mid_write_leaves_the_source_whole() {
    let dir = temp();
    let source = big_unformatted();
    std::fs::write(dir.path().join("big.tool"), &source).unwrap();
    let out = run_with_file_size_limit(dir.path(), "fmt big.tool", false);
    assert_eq!(
        out.status.code(),
        None,
        "killed by SIGXFSZ: {}",
        stderr(&out)
    );
    let after = std::fs::read_to_string(dir.path().join("big.tool")).unwrap();
    assert!(
        after == source,
        "the source was cut to {} bytes",
        after.len()
    );
}

#[cfg(unix)]
#[test]
fn fmt_whose_write_fails_reports_it_and_leaves_the_source_whole_and_no_temporary_file() {
    let dir = temp();
    let source = big_unformatted();
    std::fs::write(dir.path().join("big.tool"), &source).unwrap();
    let out = run_with_file_size_limit(dir.path(), "fmt big.tool", true);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot write big.tool"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("big.tool")).unwrap(),
        source
    );
    assert_eq!(files_in(dir.path()), ["big.tool"]);
}

#[cfg(unix)]
#[test]
fn compile_whose_write_fails_leaves_the_old_output_whole() {
    let dir = temp();
    std::fs::write(dir.path().join("big.tool"), big_unformatted()).unwrap();
    std::fs::write(dir.path().join("out.json"), "old\n").unwrap();
    let out = run_with_file_size_limit(dir.path(), "compile big.tool -o out.json", true);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.json")).unwrap(),
        "old\n"
    );
    assert_eq!(files_in(dir.path()), ["big.tool", "out.json"]);
}

#[cfg(unix)]
#[test]
fn fmt_keeps_the_permissions_of_the_file_it_replaces() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp();
    let path = dir.path().join("a.tool");
    std::fs::write(&path, UNFORMATTED).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = run(dir.path(), &["fmt", "a.tool"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), TOOL);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
}

#[cfg(unix)]
#[test]
fn a_new_output_file_gets_the_permissions_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    let out = run(dir.path(), &["compile", "a.tool", "-o", "out.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mode = |name: &str| {
        std::fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    // a.tool was created by std::fs::write: 0o666 less the umask, as a new file should be.
    assert_eq!(mode("out.json"), mode("a.tool"));
}

#[cfg(unix)]
#[test]
fn outputs_are_written_through_a_symlink_and_into_a_pipe() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    std::fs::write(dir.path().join("real.json"), "old\n").unwrap();
    std::os::unix::fs::symlink("real.json", dir.path().join("link.json")).unwrap();
    let out = run(dir.path(), &["compile", "a.tool", "-o", "link.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let link = std::fs::symlink_metadata(dir.path().join("link.json")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced");
    let json = std::fs::read_to_string(dir.path().join("real.json")).unwrap();
    assert!(json.contains("\"greet\""), "{json}");

    // A named pipe is written into, not replaced. Held open for reading and writing here, the
    // pipe never blocks tooldef's open or its write (the JSON fits the pipe's buffer).
    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let out = run(dir.path(), &["compile", "a.tool", "-o", "pipe"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let still = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(still.file_type().is_fifo(), "the pipe was replaced");
    let mut got = vec![0; json.len()];
    reader.read_exact(&mut got).unwrap();
    assert_eq!(String::from_utf8(got).unwrap(), json);
}

// An output that is one of the inputs.

#[test]
fn compile_refuses_to_write_over_its_source() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    let out = run(dir.path(), &["compile", "a.tool", "-o", "./a.tool"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("the output ./a.tool is the input a.tool"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.tool")).unwrap(),
        TOOL
    );
}

#[cfg(unix)]
#[test]
fn import_refuses_to_write_over_its_input_through_a_symlink() {
    let dir = temp();
    let schema = r#"{"type": "object", "properties": {"x": {"type": "string"}}}"#;
    std::fs::write(dir.path().join("s.json"), schema).unwrap();
    std::os::unix::fs::symlink("s.json", dir.path().join("link.json")).unwrap();
    let out = run(
        dir.path(),
        &[
            "import",
            "s.json",
            "--from",
            "json-schema",
            "--name",
            "n",
            "-o",
            "link.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("the output link.json is the input s.json"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.json")).unwrap(),
        schema
    );
}

#[cfg(unix)]
#[test]
fn compile_refuses_to_write_over_a_hard_link_to_its_source() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    std::fs::hard_link(dir.path().join("a.tool"), dir.path().join("b.json")).unwrap();
    let out = run(dir.path(), &["compile", "a.tool", "-o", "b.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("the output b.json is the input a.tool"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.tool")).unwrap(),
        TOOL
    );
}

// fmt goes on past what it cannot read.

#[test]
fn fmt_formats_every_file_it_can_read_and_exits_2_for_the_others() {
    let dir = temp();
    std::fs::create_dir(dir.path().join("dir")).unwrap();
    std::fs::write(dir.path().join("a.tool"), UNFORMATTED).unwrap();
    std::fs::write(dir.path().join("bad.tool"), b"tool \xff {}\n").unwrap();
    std::fs::write(dir.path().join("b.tool"), UNFORMATTED).unwrap();
    let out = run(
        dir.path(),
        &["fmt", "a.tool", "dir", "missing.tool", "bad.tool", "b.tool"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("error: cannot read dir"), "{err}");
    assert!(err.contains("error: cannot read missing.tool"), "{err}");
    assert!(err.contains("tooldef::invalid-utf8"), "{err}");
    for name in ["a.tool", "b.tool"] {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            TOOL,
            "{name}"
        );
    }
    assert_eq!(
        std::fs::read(dir.path().join("bad.tool")).unwrap(),
        b"tool \xff {}\n"
    );
}

#[test]
fn fmt_exits_1_for_a_file_that_is_not_utf8_as_check_does() {
    let dir = temp();
    std::fs::write(dir.path().join("bad.tool"), b"tool \xff {}\n").unwrap();
    std::fs::write(dir.path().join("b.tool"), UNFORMATTED).unwrap();
    let out = run(dir.path(), &["fmt", "bad.tool", "b.tool"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let check = run(dir.path(), &["check", "bad.tool"]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.tool")).unwrap(),
        TOOL
    );
}

// Bounded reads.

/// The message for an input over a limit: the limit in bytes and the option that raises it.
fn assert_over_limit(out: &Output, what: &str, bytes: usize, option: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    let err = stderr(out);
    let expected = format!("{what} is larger than the limit of {bytes} bytes");
    assert!(err.contains(&expected), "{err}");
    assert!(
        err.contains(&format!("raise it with {option} BYTES")),
        "{err}"
    );
}

const TEN_MIB: usize = 10 * 1024 * 1024;
const FOUR_MIB: usize = 4 * 1024 * 1024;

#[cfg(unix)]
#[test]
fn sources_from_dev_zero_stop_at_10_mib() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    let out = run(dir.path(), &["check", "a.tool", "/dev/zero"]);
    assert_over_limit(&out, "/dev/zero", TEN_MIB, "--max-input-bytes");
    let out = run(dir.path(), &["fmt", "/dev/zero"]);
    assert_over_limit(&out, "/dev/zero", TEN_MIB, "--max-input-bytes");
    let out = run(dir.path(), &["compile", "/dev/zero"]);
    assert_over_limit(&out, "/dev/zero", TEN_MIB, "--max-input-bytes");
}

#[cfg(unix)]
#[test]
fn imports_responses_and_bindings_from_dev_zero_stop_at_10_mib() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    let out = run(dir.path(), &["import", "/dev/zero", "--from", "openai"]);
    assert_over_limit(&out, "/dev/zero", TEN_MIB, "--max-input-bytes");
    let out = run(
        dir.path(),
        &["dispatch", "a.tool", "/dev/zero", "--from", "openai"],
    );
    assert_over_limit(&out, "/dev/zero", TEN_MIB, "--max-input-bytes");
    let out = run(dir.path(), &["serve", "a.tool", "--bind", "/dev/zero"]);
    assert_over_limit(&out, "/dev/zero", TEN_MIB, "--max-input-bytes");
}

#[cfg(unix)]
#[test]
fn arguments_from_dev_zero_stop_at_the_validators_4_mib() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    let out = run(
        dir.path(),
        &["validate", "a.tool", "--tool", "greet", "/dev/zero"],
    );
    assert_over_limit(&out, "/dev/zero", FOUR_MIB, "--max-args-bytes");
}

#[test]
fn endless_standard_input_stops_at_the_limit() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    let out = run_endless_stdin(dir.path(), &["validate", "a.tool", "--tool", "greet"]);
    assert_over_limit(&out, "standard input", FOUR_MIB, "--max-args-bytes");
    let out = run_endless_stdin(dir.path(), &["check", "-"]);
    assert_over_limit(&out, "standard input", TEN_MIB, "--max-input-bytes");
    let out = run_endless_stdin(dir.path(), &["dispatch", "a.tool", "--from", "anthropic"]);
    assert_over_limit(&out, "standard input", TEN_MIB, "--max-input-bytes");
    let out = run_endless_stdin(dir.path(), &["import", "-", "--from", "mcp"]);
    assert_over_limit(&out, "standard input", TEN_MIB, "--max-input-bytes");
}

#[test]
fn the_limits_are_changed_with_options_and_accept_units() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    // A file over the limit is refused (its size is known before reading it).
    let out = run(dir.path(), &["--max-input-bytes", "16", "check", "a.tool"]);
    assert_over_limit(&out, "a.tool", 16, "--max-input-bytes");
    // The options are global: they may follow the command too.
    let out = run(
        dir.path(),
        &["check", "a.tool", "--max-input-bytes", "1KiB"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(dir.path(), &["check", "a.tool", "--max-input-bytes", "ten"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a size"), "{}", stderr(&out));
}

#[test]
fn the_argument_limit_is_the_one_the_validator_applies() {
    let dir = temp();
    std::fs::write(dir.path().join("a.tool"), TOOL).unwrap();
    // 5 MiB of arguments: over the default, read and accepted once the limit is raised.
    let args = format!("{{\"name\": \"{}\"}}", "x".repeat(5 * 1024 * 1024));
    std::fs::write(dir.path().join("args.json"), &args).unwrap();
    let validate = ["validate", "a.tool", "--tool", "greet", "args.json"];
    let out = run(dir.path(), &validate);
    assert_over_limit(&out, "args.json", FOUR_MIB, "--max-args-bytes");
    let raised = [&validate[..], &["--max-args-bytes", "6MiB"]].concat();
    let out = run(dir.path(), &raised);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// An MCP server whose `tools/list` never ends (each page a megabyte more, with a new cursor):
/// the tools gathered over the pages stop at the input limit, for `import --server` and `call`.
/// Before the limit, the client gathered pages until allocation failed (4 GB in 37 s).
#[test]
fn an_mcp_server_that_lists_tools_forever_stops_at_the_limit() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("notice: python3 is not installed; the endless MCP server test is skipped");
        return;
    }
    let dir = temp();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/endless_server.py");
    let server = format!("python3 '{}'", script.display());
    let out = run(
        dir.path(),
        &["import", "--from", "mcp", "--server", &server],
    );
    assert_over_limit(&out, "`tools/list`", TEN_MIB, "--max-input-bytes");
    let out = run(
        dir.path(),
        &[
            "--max-input-bytes",
            "64KiB",
            "call",
            "--server",
            &server,
            "t1",
            "{}",
        ],
    );
    assert_over_limit(&out, "`tools/list`", 64 * 1024, "--max-input-bytes");
}

// Long lines.

/// An error 70,000 columns along a line: miette aligned its label with a formatting width, which
/// stops at 65,535, so every command that draws a report of it panicked (exit 101).
#[test]
fn an_error_far_along_a_long_line_is_reported() {
    let dir = temp();
    let source = format!("type A {{{}a: strin }}\n", " ".repeat(70_000));
    std::fs::write(dir.path().join("p.tool"), source).unwrap();
    for args in [
        &["check", "p.tool"][..],
        &["compile", "--target", "openai", "p.tool"],
        &["stats", "p.tool"],
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("p.tool:1:70012"), "{args:?}: {err}");
        assert!(err.len() < 2_000, "{args:?}: {} bytes", err.len());
    }
}

#[test]
fn a_pipe_named_like_a_source_in_a_folder_is_passed_over() {
    // The folder walk took every entry named `*.tool` that is not a folder: opening a pipe
    // waits for a writer, so `check DIR` with a pipe `evil.tool` in DIR never ended.
    let dir = temp();
    std::fs::write(dir.path().join("good.tool"), TOOL).unwrap();
    let made = Command::new("mkfifo")
        .arg(dir.path().join("evil.tool"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    for command in ["check", "stats"] {
        let mut child = Command::new(BIN)
            .args([command, "."])
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run tooldef");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while child.try_wait().expect("wait").is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("`tooldef {command} .` still reads the pipe after 30 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("output");
        assert!(out.status.success(), "{command}: {}", stderr(&out));
    }
}

/// A named pipe named directly, with no writer, is read as empty instead of waiting forever for
/// a writer; one, two and four of them in one command.
#[cfg(unix)]
#[test]
fn a_pipe_named_directly_does_not_wait_for_a_writer() {
    let dir = TempDir::new().expect("temp dir");
    for n in [1, 2, 4] {
        let mut names = Vec::new();
        for i in 0..n {
            let name = format!("pipe{n}_{i}.tool");
            let made = Command::new("mkfifo")
                .arg(dir.path().join(&name))
                .status()
                .is_ok_and(|s| s.success());
            if !made {
                eprintln!("notice: mkfifo is unavailable; the test is skipped");
                return;
            }
            names.push(name);
        }
        let mut child = Command::new(BIN)
            .arg("check")
            .args(&names)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run tooldef");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("check of {n} pipes waited for a writer");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "{n} pipes");
    }
}

/// A folder where a file is to be written, or a file where a folder is, is refused with what to
/// do about it.
#[test]
fn a_folder_or_a_file_in_the_way_says_what_to_do() {
    let dir = TempDir::new().expect("temp dir");
    std::fs::write(dir.path().join("t.tool"), TOOL).expect("write");
    std::fs::create_dir(dir.path().join("folder")).expect("mkdir");
    std::fs::write(dir.path().join("file"), "").expect("write");
    let o = run(dir.path(), &["compile", "t.tool", "-o", "folder"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("it is a folder; name a file"), "{err}");
    let o = run(
        dir.path(),
        &["build", "t.tool", "--target", "openai", "--out-dir", "file"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("name another --out-dir"), "{err}");
    let o = run(dir.path(), &["check", "folder"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds no `.tool` file"), "{err}");
}
