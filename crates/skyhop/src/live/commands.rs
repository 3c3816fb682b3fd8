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
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
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

pub struct Running {
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
pub fn unshare_binary() -> Option<PathBuf> {
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

/// Start `spec` in `host`'s namespace. `env`: the variables every command
/// gets; `stdout_to_stderr`: its standard output goes to skyhop's standard
/// error (when skyhop's own output is a JSON document).
pub fn spawn(
    spec: &CommandSpec,
    host: &Host,
    env: &[(String, String)],
    unshare: Option<&PathBuf>,
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
    // SAFETY: only async-signal-safe system calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(ns, libc::CLONE_NEWNET) != 0 {
                return Err(io::Error::last_os_error());
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
    pub fn poll(&mut self, started: Instant) -> bool {
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
pub fn stop_all(cmds: &mut [Running], grace: Duration, started: Instant, ns_inodes: &[u64]) {
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
pub fn kill_namespace_processes(ns_inodes: &[u64]) {
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
