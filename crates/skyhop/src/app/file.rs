//! A file transfer: `size` bytes handed to stream 0 at the start; done when
//! the last byte has arrived in order at the destination. A flow without
//! `app` whose `size` is a number of bytes.
//!
//! With `flows.<id>.headers = false` the size counts packets on the wire,
//! as ns-2's FTP did before `useHeaders_` (2001-11-28): ns-2 cut the
//! application's bytes into whole `packetSize_` packets (`sendmsg` rounds
//! up) and added no header, so a 5 MB file was 3 334 packets of 1500 B.
//! skyhop's packets always carry a header: the file becomes that many full
//! segments, each `mss` bytes of the stream under `header` bytes, the same
//! packets on the wire ([`FileSpec::on_wire`]).

use super::{AppIo, AppSpecOps, Application};
use crate::engine::time::Time;

/// Send `size` bytes once (`flows.<id>.size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileSpec {
    /// Bytes of the stream.
    pub size: u64,
    /// The size as given and its packets, when it counts the wire
    /// (`headers = false`).
    pub wire: Option<WireCut>,
}

/// A file counted on the wire: `size` bytes cut into `packets` whole
/// packets of `packet` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireCut {
    pub size: u64,
    pub packets: u64,
    pub packet: u32,
}

impl FileSpec {
    /// A file of `size` payload bytes (a header added to each packet).
    pub fn payload(size: u64) -> FileSpec {
        FileSpec { size, wire: None }
    }

    /// A file whose `size` counts the packets on the wire: whole packets of
    /// a full segment, `mss + header` bytes, the last rounded up; the
    /// stream carries `mss` bytes of each.
    pub fn on_wire(size: u64, mss: u32, header: u32) -> FileSpec {
        let packet = mss + header;
        let packets = size.div_ceil(packet as u64);
        FileSpec {
            size: packets * mss as u64,
            wire: Some(WireCut {
                size,
                packets,
                packet,
            }),
        }
    }
}

impl AppSpecOps for FileSpec {
    type Built = FileTransfer;
    fn build(&self, _seed: u64, _flow: &str) -> FileTransfer {
        FileTransfer::new(self.size)
    }
    fn finite(&self) -> bool {
        true
    }
    fn describe(&self) -> String {
        match self.wire {
            None => format!("file of {} B", self.size),
            Some(w) => format!(
                "file of {} B on the wire, no header added: {} packets of {} B ({} B of stream)",
                w.size, w.packets, w.packet, self.size
            ),
        }
    }
}

pub struct FileTransfer {
    size: u64,
    done: bool,
}

impl FileTransfer {
    pub fn new(size: u64) -> Self {
        FileTransfer { size, done: false }
    }
}

impl Application for FileTransfer {
    fn start(&mut self, _now: Time, io: &mut AppIo) {
        io.send(0, self.size);
    }

    fn on_delivered(
        &mut self,
        _now: Time,
        _stream: usize,
        _bytes: u64,
        total: u64,
        io: &mut AppIo,
    ) {
        if total > self.size {
            io.fail(format!(
                "{total} bytes delivered for a {}-byte transfer",
                self.size
            ));
        } else if total == self.size {
            self.done = true;
        }
    }

    fn done(&self) -> bool {
        self.done
    }
}
