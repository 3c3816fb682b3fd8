//! The users' commands, each run inside its live host's namespace.
//!
//! A command runs as `sh -c COMMAND` with `SKYHOP_NODE`, `SKYHOP_ADDR` and
//! `SKYHOP_ADDR_<NODE>` for every node in its environment. It is the init
//! process of a PID namespace of its own (through util-linux `unshare
//! --pid --fork --kill-child`, when installed), so that everything it
//! starts — daemons included — ends with it; the wrapper gets SIGKILL if
//! the thread that started it dies (`PR_SET_PDEATHSIG`), so a killed
//! skyhop leaves nothing running either. Without `unshare`, commands run
//! directly and are ended by process group and by a sweep of the processes
//! left in the run's namespaces.

use super::host::Host;
use serde::Serialize;
use std::ffi::CString;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A command to run on a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    /// The node (index) and its name.
    pub node: u32,
    pub node_name: String,
    pub command: String,
    /// A background command (a server, a daemon): the run does not wait for
    /// it, and stops it at the end.
    pub background: bool,
}

/// How a command ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CommandResult {
    pub node: String,
    pub command: String,
    pub background: bool,
    /// Exit status; `None` if it was ended by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// It was still running when the run ended, and was stopped.
    pub stopped_at_end: bool,
    /// Seconds from the run's start to its end.
    pub ended_at_s: Option<f64>,
}

impl CommandResult {
    /// The status the run reports for it: its exit code, 128 + signal, or
    /// 124 (as `timeout`) for a foreground command stopped at the end.
    pub fn status(&self) -> i32 {
        if self.background {
            return 0;
        }
        if self.stopped_at_end {
            return 124;
        }
        match (self.exit_code, self.signal) {
            (Some(c), _) => c,
            (None, Some(s)) => 128 + s,
            _ => 0,
        }
    }
}

pub(super) struct Running {
    pub spec: CommandSpec,
    child: Child,
    pub result: Option<CommandResult>,
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// util-linux `unshare`, if installed.
pub(super) fn unshare_binary() -> Option<PathBuf> {
    find_in_path("unshare")
}

/// An environment variable name for a node: `SKYHOP_ADDR_` + the name
/// with every character outside `[A-Za-z0-9_]` replaced by `_`.
pub fn addr_var(node: &str) -> String {
    let clean: String = node
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("SKYHOP_ADDR_{clean}")
}

/// The name-service files the commands see: node names resolve to their
/// addresses (`/etc/hosts`), and every other lookup fails at once
/// (`/etc/resolv.conf` names 127.0.0.1, where nothing answers in a live
/// host; `/etc/nsswitch.conf` asks files, then DNS). A live host's only
/// routes lead into the engine, so the machine's resolver is out of reach
/// (it may even be an address in 10/8, which the engine takes for a node):
/// without these, a program that looks up a name (Python's `http.server`
/// looks up its own address) waits for the resolver's timeouts, about ten
/// seconds, before it starts. Each command gets them bind-mounted over the
/// machine's, in a mount namespace of its own; the files are removed once
/// the commands have started (the mounts keep them).
pub(super) struct NameFiles {
    dir: PathBuf,
    /// (file in `dir`, the file it covers), as C strings for the child.
    mounts: Vec<(CString, CString)>,
}

impl NameFiles {
    /// Write the files for `nodes` (name, address) into a new private folder.
    pub(super) fn create(nodes: &[(String, String)]) -> io::Result<NameFiles> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = std::env::temp_dir().join(format!(
            "skyhop-live-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos())
        ));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let files = NameFiles {
            dir,
            mounts: Vec::new(),
        };
        files.write(nodes)
    }

    fn write(mut self, nodes: &[(String, String)]) -> io::Result<NameFiles> {
        let mut hosts = String::from("127.0.0.1\tlocalhost\n::1\tlocalhost\n");
        for (name, addr) in nodes {
            if is_host_name(name) {
                hosts.push_str(&format!("{addr}\t{name}\n"));
            }
        }
        let resolv = "# skyhop live: no resolver is reachable from a live host\n\
                      nameserver 127.0.0.1\noptions timeout:1 attempts:1\n";
        let nsswitch = nsswitch_with_files_first(
            &std::fs::read_to_string("/etc/nsswitch.conf").unwrap_or_default(),
        );
        for (name, text, target) in [
            ("hosts", hosts.as_str(), "/etc/hosts"),
            ("resolv.conf", resolv, "/etc/resolv.conf"),
            ("nsswitch.conf", nsswitch.as_str(), "/etc/nsswitch.conf"),
        ] {
            if !Path::new(target).exists() {
                continue; // nothing to cover (a dangling link, a minimal system)
            }
            let path = self.dir.join(name);
            std::fs::write(&path, text)?;
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
            let c = |p: &Path| CString::new(p.as_os_str().as_encoded_bytes().to_vec());
            if let (Ok(src), Ok(dst)) = (c(&path), c(Path::new(target))) {
                self.mounts.push((src, dst));
            }
        }
        Ok(self)
    }

    /// Remove the folder (the commands' mounts keep their files).
    pub(super) fn remove(&self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for NameFiles {
    fn drop(&mut self) {
        self.remove();
    }
}

/// A name `/etc/hosts` can hold: letters, digits, `-` and `.`, not
/// starting with `-` or `.`.
fn is_host_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

/// The machine's `nsswitch.conf` with its `hosts:` line replaced by
/// `files dns` (no mDNS, no systemd-resolved: the latter would resolve
/// from the machine's own network, through a Unix socket).
fn nsswitch_with_files_first(text: &str) -> String {
    let mut out: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("hosts:"))
        .map(|l| format!("{l}\n"))
        .collect();
    out.push_str("hosts: files dns\n");
    out
}

/// In a command's child, before it runs: a mount namespace of its own with
/// `files` over the machine's (best effort: where the system refuses, the
/// command sees the machine's files). Async-signal-safe system calls only.
fn cover_name_files(files: &[(CString, CString)]) {
    // SAFETY: plain system calls on C strings built before the fork.
    unsafe {
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return;
        }
        // private: nothing mounted here reaches the machine's namespace
        let root = c"/".as_ptr();
        if libc::mount(
            std::ptr::null(),
            root,
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return;
        }
        for (src, dst) in files {
            libc::mount(
                src.as_ptr(),
                dst.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            );
        }
    }
}

/// Start `spec` in `host`'s namespace. `env`: the variables every command
/// gets; `names`: the name-service files it sees ([`NameFiles`]);
/// `stdout_to_stderr`: its standard output goes to skyhop's standard
/// error (when skyhop's own output is a JSON document).
pub(super) fn spawn(
    spec: &CommandSpec,
    host: &Host,
    env: &[(String, String)],
    unshare: Option<&PathBuf>,
    names: Option<&NameFiles>,
    stdout_to_stderr: bool,
) -> io::Result<Running> {
    let mut cmd = match unshare {
        Some(u) => {
            let mut c = Command::new(u);
            c.args([
                "--pid",
                "--fork",
                "--kill-child=SIGKILL",
                "/bin/sh",
                "-c",
                &spec.command,
            ]);
            c
        }
        None => {
            let mut c = Command::new("/bin/sh");
            c.args(["-c", &spec.command]);
            c
        }
    };
    cmd.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    cmd.env("SKYHOP_NODE", &spec.node_name);
    cmd.env("SKYHOP_ADDR", host.address());
    cmd.stdin(Stdio::null());
    if stdout_to_stderr {
        cmd.stdout(io::stderr());
    }
    let ns = host.ns_fd();
    let mounts: Vec<(CString, CString)> = names.map(|n| n.mounts.clone()).unwrap_or_default();
    // SAFETY: only async-signal-safe system calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(ns, libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
            }
            if !mounts.is_empty() {
                cover_name_files(&mounts);
            }
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            );
            libc::setpgid(0, 0);
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    Ok(Running {
        spec: spec.clone(),
        child,
        result: None,
    })
}

impl Running {
    /// Check whether it ended (without waiting); `started`: the run's start.
    pub(super) fn poll(&mut self, started: Instant) -> bool {
        if self.result.is_some() {
            return true;
        }
        if let Ok(Some(st)) = self.child.try_wait() {
            self.result = Some(CommandResult {
                node: self.spec.node_name.clone(),
                command: self.spec.command.clone(),
                background: self.spec.background,
                exit_code: st.code(),
                signal: st.signal(),
                stopped_at_end: false,
                ended_at_s: Some(started.elapsed().as_secs_f64()),
            });
            return true;
        }
        false
    }

    fn signal_group(&self, sig: libc::c_int) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals to the command's process group (and the wrapper).
        unsafe {
            libc::kill(-pid, sig);
            libc::kill(pid, sig);
        }
    }
}

/// Stop every command still running: SIGTERM to its process group, then
/// SIGKILL after `grace`; then SIGKILL to any process left in the run's
/// namespaces (`ns_inodes`), and reap the commands.
pub(super) fn stop_all(cmds: &mut [Running], grace: Duration, started: Instant, ns_inodes: &[u64]) {
    let mut live: Vec<usize> = (0..cmds.len())
        .filter(|&i| !cmds[i].poll(started))
        .collect();
    let stopped = live.clone();
    for &i in &live {
        cmds[i].signal_group(libc::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    while !live.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
        live.retain(|&i| !cmds[i].poll(started));
    }
    for &i in &live {
        cmds[i].signal_group(libc::SIGKILL);
    }
    for &i in &live {
        let _ = cmds[i].child.wait();
        let r = cmds[i].poll(started);
        debug_assert!(r);
    }
    for &i in &stopped {
        if let Some(r) = cmds[i].result.as_mut() {
            r.stopped_at_end = true;
        }
    }
    kill_namespace_processes(ns_inodes);
}

/// SIGKILL every process whose network namespace is one of `ns_inodes`.
pub(super) fn kill_namespace_processes(ns_inodes: &[u64]) {
    if ns_inodes.is_empty() {
        return;
    }
    for _ in 0..50 {
        let mut found = false;
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return;
        };
        for e in dir.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<libc::pid_t>() else {
                continue;
            };
            let Ok(meta) = std::fs::metadata(format!("/proc/{pid}/ns/net")) else {
                continue;
            };
            use std::os::unix::fs::MetadataExt;
            if ns_inodes.contains(&meta.ino()) {
                found = true;
                // SAFETY: a signal to a process inside the run's namespaces.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        if !found {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_variables_name_every_node_in_shell_words() {
        assert_eq!(addr_var("GW"), "SKYHOP_ADDR_GW");
        assert_eq!(addr_var("gw-2.é"), "SKYHOP_ADDR_gw_2__");
    }

    #[test]
    fn name_files_name_every_node_that_is_a_host_name() {
        assert!(is_host_name("GW") && is_host_name("gw-2.sat") && !is_host_name("gw 2"));
        assert!(!is_host_name("-a") && !is_host_name("é") && !is_host_name(""));
        let text =
            "passwd: files systemd\nhosts:   files mdns4_minimal [NOTFOUND=return] resolve dns\n";
        assert_eq!(
            nsswitch_with_files_first(text),
            "passwd: files systemd\nhosts: files dns\n"
        );
        let nodes = [
            ("A".to_string(), "10.0.0.1".to_string()),
            ("B c".to_string(), "10.0.1.1".to_string()),
        ];
        let files = NameFiles::create(&nodes).unwrap();
        let hosts = std::fs::read_to_string(files.dir.join("hosts")).unwrap();
        assert!(hosts.contains("127.0.0.1\tlocalhost\n") && hosts.contains("10.0.0.1\tA\n"));
        assert!(!hosts.contains("B c"));
        let resolv = std::fs::read_to_string(files.dir.join("resolv.conf")).unwrap();
        assert!(resolv.contains("nameserver 127.0.0.1"));
        let dir = files.dir.clone();
        drop(files);
        assert!(!dir.exists(), "nothing left behind");
    }

    #[test]
    fn the_status_of_a_command() {
        let mut r = CommandResult {
            exit_code: Some(3),
            ..Default::default()
        };
        assert_eq!(r.status(), 3);
        r.exit_code = None;
        r.signal = Some(9);
        assert_eq!(r.status(), 137);
        r.stopped_at_end = true;
        assert_eq!(r.status(), 124);
        r.background = true;
        assert_eq!(r.status(), 0);
    }
}
