//! Reading files a user names (scenarios, TLE files, channel tables, a live
//! run's record): only what is expected and never more than a bound. The
//! one place the engine opens such a file; every reader goes through
//! [`open`] or [`read`].
//!
//! A FIFO, a device such as /dev/zero, a socket or a directory is refused
//! before it is opened (opening a FIFO blocks until someone writes; reading
//! /dev/zero never ends), unless the caller accepts a pipe (a scenario given
//! as `<(cat scenario.toml)`). A file that grows past its bound while being
//! read is an error, not a silently shortened read. (Python's counterpart
//! is `skyhop.files.read_bounded`.)

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// What a reader accepts besides a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accept {
    /// A regular file only.
    Regular,
    /// A regular file or a pipe (`<(...)`, `/dev/stdin` on a pipe).
    RegularOrPipe,
}

/// Why a file was not read.
#[derive(Debug)]
pub(crate) enum FileError {
    /// The system refused (no such file, permission denied, ...).
    Io(io::Error),
    /// Not a regular file: what it is instead ("a FIFO", "a directory", ...).
    NotRegular(&'static str),
    /// Larger than the bound (bytes).
    TooLarge { limit: u64 },
    /// Not UTF-8 text (from [`read_text`]).
    NotText,
    /// A pipe nothing was written to (no writer).
    EmptyPipe,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Io(e) => write!(f, "{e}"),
            FileError::NotRegular(kind) => write!(
                f,
                "not a regular file ({kind}; skyhop reads ordinary files, not pipes, devices or directories)"
            ),
            FileError::TooLarge { limit } => write!(
                f,
                "larger than {limit} bytes, the most skyhop reads from such a file"
            ),
            FileError::NotText => write!(f, "not UTF-8 text"),
            FileError::EmptyPipe => write!(f, "a FIFO with nothing written to it (no writer)"),
        }
    }
}

impl std::error::Error for FileError {}

impl From<io::Error> for FileError {
    fn from(e: io::Error) -> Self {
        FileError::Io(e)
    }
}

/// The kind of a file that is not regular, in words.
fn kind_of(t: std::fs::FileType) -> Option<&'static str> {
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else {
        Some(special_kind(t))
    }
}

#[cfg(unix)]
fn special_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not an ordinary file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: std::fs::FileType) -> &'static str {
    "not an ordinary file"
}

#[cfg(unix)]
fn is_fifo(t: std::fs::FileType) -> bool {
    std::os::unix::fs::FileTypeExt::is_fifo(&t)
}

#[cfg(not(unix))]
fn is_fifo(_: std::fs::FileType) -> bool {
    false
}

/// Opening never waits: not for a FIFO's writer, nor for a regular file
/// swapped for a FIFO between the check and the open; never as a
/// controlling terminal.
#[cfg(target_os = "linux")]
fn open_nonblocking(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
}

#[cfg(not(target_os = "linux"))]
fn open_nonblocking(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    options
}

#[cfg(target_os = "linux")]
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this File owns, with integer arguments.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_blocking(_: &File) -> io::Result<()> {
    Ok(())
}

/// A file opened by [`open`]: reads fail with [`FileError::TooLarge`]
/// (as an `io::Error` of kind `FileTooLarge` wrapping it) past the bound.
pub(crate) struct Bounded {
    inner: io::Take<File>,
    limit: u64,
    /// A pipe, not a regular file.
    pub pipe: bool,
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.inner.limit() == 0 && n > 0 {
            // One byte past the bound was read: the file is larger.
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                FileError::TooLarge { limit: self.limit },
            ));
        }
        Ok(n)
    }
}

/// Open `path` for reading at most `limit` bytes, refusing anything that
/// is not a regular file (or, with [`Accept::RegularOrPipe`], a pipe)
/// before opening it; the kind is checked again on the opened file, so a
/// file swapped for a FIFO meanwhile is refused too, without blocking.
pub(crate) fn open(path: &Path, limit: u64, accept: Accept) -> Result<Bounded, FileError> {
    let pipe_ok = |t: std::fs::FileType| accept == Accept::RegularOrPipe && is_fifo(t);
    let refuse = |t: std::fs::FileType| kind_of(t).filter(|_| !pipe_ok(t));
    let before = std::fs::metadata(path)?.file_type();
    if let Some(kind) = refuse(before) {
        return Err(FileError::NotRegular(kind));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    let file = open_nonblocking(&mut options).open(path)?;
    let after = file.metadata()?.file_type();
    if let Some(kind) = refuse(after) {
        return Err(FileError::NotRegular(kind));
    }
    if is_fifo(after) {
        // A pipe is read blocking (a writer with more to come); one with
        // no writer reads as empty at once.
        set_blocking(&file)?;
    }
    Ok(Bounded {
        inner: file.take(limit.saturating_add(1)),
        limit,
        pipe: is_fifo(after),
    })
}

/// The bytes of `path` (see [`open`]); a pipe with nothing written to it
/// (no writer) is an error, not an empty file.
pub(crate) fn read(path: &Path, limit: u64, accept: Accept) -> Result<Vec<u8>, FileError> {
    let mut f = open(path, limit, accept)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).map_err(from_read)?;
    if bytes.is_empty() && f.pipe {
        return Err(FileError::EmptyPipe);
    }
    Ok(bytes)
}

/// The text of `path`, UTF-8 (see [`open`]).
pub(crate) fn read_text(path: &Path, limit: u64, accept: Accept) -> Result<String, FileError> {
    String::from_utf8(read(path, limit, accept)?).map_err(|_| FileError::NotText)
}

/// A read error of a [`Bounded`] file as a [`FileError`] (the bound's
/// error comes back as itself).
pub(crate) fn from_read(e: io::Error) -> FileError {
    if e.kind() == io::ErrorKind::FileTooLarge {
        if let Some(FileError::TooLarge { limit }) =
            e.get_ref().and_then(|x| x.downcast_ref::<FileError>())
        {
            return FileError::TooLarge { limit: *limit };
        }
    }
    FileError::Io(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("skyhop-files-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_regular_file_reads_up_to_its_bound_and_no_further() {
        let d = dir("bound");
        let p = d.join("ten");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read(&p, 10, Accept::Regular).unwrap(), b"0123456789");
        let e = read(&p, 9, Accept::Regular).unwrap_err();
        assert!(matches!(e, FileError::TooLarge { limit: 9 }), "{e}");
        assert!(e.to_string().contains("larger than 9 bytes"), "{e}");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(matches!(
            read_text(&p, 10, Accept::Regular),
            Err(FileError::NotText)
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn devices_fifos_and_directories_are_refused_without_blocking() {
        let d = dir("kinds");
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for (p, kind) in [
            (PathBuf::from("/dev/zero"), "a character device"),
            (fifo.clone(), "a FIFO"),
            (d.clone(), "a directory"),
        ] {
            match read(&p, 1 << 20, Accept::Regular) {
                Err(FileError::NotRegular(k)) => assert_eq!(k, kind, "{}", p.display()),
                other => panic!("{}: {other:?}", p.display()),
            }
        }
        // A device is refused even where a pipe would be accepted.
        assert!(matches!(
            read(Path::new("/dev/zero"), 1 << 20, Accept::RegularOrPipe),
            Err(FileError::NotRegular("a character device"))
        ));
        let missing = read(&d.join("none"), 10, Accept::Regular).unwrap_err();
        assert!(matches!(missing, FileError::Io(_)), "{missing}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_pipe_is_read_where_accepted_and_refused_elsewhere() {
        let mut fds = [0; 2];
        // SAFETY: fds is a valid array of two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the write end is ours; written and closed at once.
        unsafe {
            libc::write(fds[1], b"abc".as_ptr().cast(), 3);
            libc::close(fds[1]);
        }
        let p = PathBuf::from(format!("/proc/self/fd/{}", fds[0]));
        assert!(matches!(
            read(&p, 10, Accept::Regular),
            Err(FileError::NotRegular("a FIFO"))
        ));
        assert_eq!(read(&p, 10, Accept::RegularOrPipe).unwrap(), b"abc");
        // SAFETY: the read end is ours.
        unsafe { libc::close(fds[0]) };
        // A named FIFO nobody writes to: an error at once, not a wait.
        let d = dir("pipe");
        let fifo = d.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(matches!(
            read(&fifo, 10, Accept::RegularOrPipe),
            Err(FileError::EmptyPipe)
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
