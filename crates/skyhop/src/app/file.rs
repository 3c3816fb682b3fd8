//! A file transfer: `size` bytes handed to stream 0 at the start; done when
//! the last byte has arrived in order at the destination.

use super::{AppIo, Application};
use crate::engine::time::Time;

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
