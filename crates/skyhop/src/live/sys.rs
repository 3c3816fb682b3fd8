//! The Linux system calls a live run needs, in safe wrappers: network
//! namespaces, TUN devices and their addresses, the monotonic clock, waiting
//! on descriptors with a nanosecond timeout, real-time scheduling.
//!
//! Everything here is plain `libc`; nothing is configured through external
//! programs, so a run needs no `ip` binary and leaves nothing configured
//! outside the namespaces it made (a namespace, and the TUN device in it,
//! disappear when the last descriptor and process referring to it are gone).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// `struct ifreq` with the union members this module uses.
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: IfReqData,
}

#[repr(C)]
union IfReqData {
    flags: libc::c_short,
    addr: libc::sockaddr_in,
    mtu: libc::c_int,
    _pad: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> IfReq {
        let mut r = IfReq {
            name: [0; libc::IFNAMSIZ],
            data: IfReqData { _pad: [0; 24] },
        };
        for (i, b) in name.bytes().take(libc::IFNAMSIZ - 1).enumerate() {
            r.name[i] = b as libc::c_char;
        }
        r
    }
}

fn sockaddr(ip: [u8; 4]) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: 0,
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(ip),
        },
        sin_zero: [0; 8],
    }
}

/// Move the calling thread into a new network namespace; returns a
/// descriptor of it (which keeps it alive).
pub(super) fn new_netns() -> io::Result<OwnedFd> {
    // SAFETY: unshare affects only the calling thread's network namespace.
    cvt(unsafe { libc::unshare(libc::CLONE_NEWNET) })?;
    open("/proc/thread-self/ns/net", libc::O_RDONLY)
}

/// The inode of a namespace descriptor (what `/proc/<pid>/ns/net` links to).
pub(super) fn inode(fd: RawFd) -> io::Result<u64> {
    // SAFETY: fstat into a zeroed struct.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    cvt(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st.st_ino)
}

pub(super) fn open(path: &str, flags: libc::c_int) -> io::Result<OwnedFd> {
    let c = CString::new(path).expect("no NUL in a path");
    // SAFETY: a valid C string; the descriptor is owned from here on.
    let fd = cvt(unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC) })?;
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// What a TUN device was set up to carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TunOffloads {
    /// Checksums left to the device, and TCP segmentation (TSO for IPv4,
    /// with ECN): the host's stack may hand over 64 kB super-packets.
    pub tso: bool,
}

/// Create the TUN device `name` (layer 3, no packet information header)
/// in the calling thread's network namespace; its descriptor is
/// non-blocking. Every packet read or written carries a virtio-net header
/// (`IFF_VNET_HDR`, 10 bytes); checksum and TCP segmentation offloads are
/// switched on where the kernel permits (`TUNSETOFFLOAD`), so that one
/// read or write may move a whole TSO/GRO super-packet.
pub(super) fn tun(name: &str) -> io::Result<(OwnedFd, TunOffloads)> {
    let fd = open("/dev/net/tun", libc::O_RDWR | libc::O_NONBLOCK)?;
    let mut req = IfReq::new(name);
    req.data.flags = (libc::IFF_TUN | libc::IFF_NO_PI | libc::IFF_VNET_HDR) as libc::c_short;
    // SAFETY: TUNSETIFF takes a struct ifreq.
    cvt(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req) })?;
    let size = super::gso::VNET_HDR_LEN as libc::c_int;
    // SAFETY: TUNSETVNETHDRSZ takes a pointer to an int.
    cvt(unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETVNETHDRSZ, &size) })?;
    let features = libc::TUN_F_CSUM | libc::TUN_F_TSO4 | libc::TUN_F_TSO_ECN;
    // SAFETY: TUNSETOFFLOAD takes the feature bits as its argument.
    let tso = unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            libc::TUNSETOFFLOAD,
            features as libc::c_ulong,
        )
    } == 0;
    Ok((fd, TunOffloads { tso }))
}

/// Give interface `name` (in the calling thread's namespace) the address
/// `ip`/`prefix` and bring it up with `mtu`; `lo` is brought up too. The
/// prefix's connected route sends every address under it through the device.
pub(super) fn configure(name: &str, ip: [u8; 4], prefix: u8, mtu: u32) -> io::Result<()> {
    // SAFETY: a socket only used as a handle for interface ioctls.
    let s = cvt(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) })?;
    let s = unsafe { OwnedFd::from_raw_fd(s) };
    let fd = s.as_raw_fd();
    let up = |ifname: &str| -> io::Result<()> {
        let mut r = IfReq::new(ifname);
        // SAFETY: SIOCGIFFLAGS / SIOCSIFFLAGS take a struct ifreq.
        cvt(unsafe { libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut r) })?;
        unsafe { r.data.flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short };
        cvt(unsafe { libc::ioctl(fd, libc::SIOCSIFFLAGS, &mut r) }).map(|_| ())
    };
    up("lo")?;
    let mut r = IfReq::new(name);
    r.data.addr = sockaddr(ip);
    // SAFETY: SIOCSIFADDR / SIOCSIFNETMASK / SIOCSIFMTU take a struct ifreq.
    cvt(unsafe { libc::ioctl(fd, libc::SIOCSIFADDR, &mut r) })?;
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix as u32)
    };
    let mut r = IfReq::new(name);
    r.data.addr = sockaddr(mask.to_be_bytes());
    cvt(unsafe { libc::ioctl(fd, libc::SIOCSIFNETMASK, &mut r) })?;
    let mut r = IfReq::new(name);
    r.data.mtu = mtu as libc::c_int;
    cvt(unsafe { libc::ioctl(fd, libc::SIOCSIFMTU, &mut r) })?;
    up(name)
}

/// Read one packet (with its virtio-net header) from a non-blocking
/// descriptor into `buf`; `None` when nothing is waiting.
#[inline]
pub(super) fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: read into a buffer of the given length.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// Write one packet, gathered from `parts` (a virtio-net header first);
/// `Ok(false)` when the device's queue is full (the packet is dropped, as
/// a full transmit queue drops it).
#[inline]
pub(super) fn writev(fd: RawFd, parts: &[&[u8]]) -> io::Result<bool> {
    let iov: Vec<libc::iovec> = parts
        .iter()
        .map(|p| libc::iovec {
            iov_base: p.as_ptr() as *mut libc::c_void,
            iov_len: p.len(),
        })
        .collect();
    loop {
        // SAFETY: writev from buffers of the given lengths, alive here.
        let n = unsafe { libc::writev(fd, iov.as_ptr(), iov.len() as libc::c_int) };
        if n >= 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) | Some(libc::ENOBUFS) => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// Nanoseconds of CLOCK_MONOTONIC.
#[inline]
pub(super) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime into a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Wait until one of `fds` is readable or `timeout_ns` passed (`None`:
/// without end; 0: only look); returns whether a descriptor is ready
/// (each one's `revents` says which).
pub(super) fn wait_readable(fds: &mut [libc::pollfd], timeout_ns: Option<u64>) -> io::Result<bool> {
    let ts = timeout_ns.map(|t| libc::timespec {
        tv_sec: (t / 1_000_000_000) as libc::time_t,
        tv_nsec: (t % 1_000_000_000) as libc::c_long,
    });
    let tp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const _);
    // SAFETY: ppoll over the given array, no signal mask change.
    let n = unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            tp,
            std::ptr::null(),
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() == Some(libc::EINTR) {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(n > 0)
}

/// The CPU mask, as sysfs writes it (32-bit hexadecimal groups, the highest
/// first, joined by commas), of CPUs `0..cpus` without `except`.
pub(super) fn cpu_mask_except(cpus: usize, except: usize) -> String {
    let groups = cpus.div_ceil(32).max(1);
    (0..groups)
        .rev()
        .map(|g| {
            let mut w = 0u32;
            for bit in 0..32 {
                let cpu = g * 32 + bit;
                if cpu < cpus && cpu != except {
                    w |= 1 << bit;
                }
            }
            format!("{w:08x}")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Steer the receive processing of the packets written into `device` (a
/// device of the calling thread's network namespace) to the CPUs of `mask`
/// (Receive Packet Steering, the device's `rps_cpus`). A write into a TUN
/// device otherwise runs the receiving host's whole stack (IP, TCP, the
/// socket's wake-up) inside the writer, here the engine's thread.
///
/// The device's sysfs entry is only visible to a sysfs mounted in its
/// namespace, so the calling thread takes a mount namespace of its own
/// (private, so nothing propagates to the machine's mounts), mounts sysfs
/// there and writes the mask. Call it last on a thread that ends soon: the
/// thread's `/sys` is then its own namespace's, and the mount namespace
/// goes with the thread.
pub(super) fn steer_receive(device: &str, mask: &str) -> io::Result<()> {
    let c = |s: &str| CString::new(s).expect("no NUL");
    let (root, sys, sysfs) = (c("/"), c("/sys"), c("sysfs"));
    // SAFETY: unshare and mount with valid C strings, for the calling
    // thread's own (new) mount namespace.
    unsafe {
        cvt(libc::unshare(libc::CLONE_NEWNS))?;
        cvt(libc::mount(
            std::ptr::null(),
            root.as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))?;
        cvt(libc::mount(
            sysfs.as_ptr(),
            sys.as_ptr(),
            sysfs.as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        ))?;
    }
    std::fs::write(
        format!("/sys/class/net/{device}/queues/rx-0/rps_cpus"),
        mask,
    )
}

/// What real-time help the calling thread got.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Realtime {
    /// `SCHED_FIFO` priority, or `None` (with the reason in `notes`).
    pub fifo_priority: Option<i32>,
    /// The CPU the thread is pinned to.
    pub cpu: Option<usize>,
    /// Timer slack set to 1 ns (sleeps end on time).
    pub timer_slack_ns: Option<u64>,
    /// The CPUs (mask, as sysfs writes it) the hosts' receive processing
    /// was steered to, away from the engine's (`None`: not steered, the
    /// reason in `notes`, or nothing to steer to).
    pub receive_cpus: Option<String>,
    pub notes: Vec<String>,
}

/// Ask for real-time scheduling (`SCHED_FIFO`), pinning to the last CPU and
/// a 1 ns timer slack for the calling thread, each when permitted.
pub(super) fn realtime(fifo: bool, pin: bool) -> Realtime {
    let mut rt = Realtime::default();
    // SAFETY: prctl on the calling thread.
    if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) } == 0 {
        rt.timer_slack_ns = Some(1);
    }
    if pin {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let cpu = cpus - 1;
        // SAFETY: a zeroed cpu_set_t with one CPU set, for the calling thread.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        unsafe { libc::CPU_SET(cpu, &mut set) };
        let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
        if r == 0 {
            rt.cpu = Some(cpu);
        } else {
            rt.notes.push(format!(
                "CPU pinning refused: {}",
                io::Error::last_os_error()
            ));
        }
    }
    if fifo {
        let prio = 50;
        let p = libc::sched_param {
            sched_priority: prio,
        };
        // SAFETY: sched_setscheduler on the calling thread.
        let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) };
        if r == 0 {
            rt.fifo_priority = Some(prio);
        } else {
            rt.notes.push(format!(
                "SCHED_FIFO refused: {}",
                io::Error::last_os_error()
            ));
        }
    }
    rt
}

/// Back to normal scheduling for the calling thread.
pub(super) fn normal_scheduling() {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler on the calling thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &p) };
}

pub(super) fn pollfd(fd: RawFd) -> libc::pollfd {
    libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    }
}

/// The share of each period a real-time thread may run
/// (`sched_rt_runtime_us` / `sched_rt_period_us`); `None` when unlimited
/// (-1) or unreadable.
pub(super) fn rt_limit() -> Option<f64> {
    let read = |k: &str| -> Option<f64> {
        std::fs::read_to_string(format!("/proc/sys/kernel/{k}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let (runtime, period) = (read("sched_rt_runtime_us")?, read("sched_rt_period_us")?);
    (runtime >= 0.0 && period > 0.0).then(|| runtime / period)
}

/// CPU seconds (user + system) the calling thread has used.
pub(super) fn thread_cpu_s() -> f64 {
    // SAFETY: getrusage into a zeroed struct, for the calling thread.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::cpu_mask_except;

    #[test]
    fn cpu_masks_leave_out_the_engines_cpu() {
        assert_eq!(cpu_mask_except(2, 1), "00000001");
        assert_eq!(cpu_mask_except(4, 3), "00000007");
        assert_eq!(cpu_mask_except(4, 0), "0000000e");
        assert_eq!(cpu_mask_except(32, 31), "7fffffff");
        // 33 CPUs: two groups, the highest first.
        assert_eq!(cpu_mask_except(33, 32), "00000000,ffffffff");
        assert_eq!(cpu_mask_except(40, 39), "0000007f,ffffffff");
        assert_eq!(cpu_mask_except(64, 0), "ffffffff,fffffffe");
    }
}
