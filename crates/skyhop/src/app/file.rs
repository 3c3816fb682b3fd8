//! A file transfer: `size` bytes handed to stream 0 at the start; done when
//! the last byte has arrived in order at the destination. A flow without
//! `app` whose `size` is a number of bytes.

use super::{AppIo, AppSpecOps, Application};
use crate::engine::time::Time;

/// Send `size` bytes once (`flows.<id>.size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileSpec {
    pub size: u64,
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
        format!("file of {} B", self.size)
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
