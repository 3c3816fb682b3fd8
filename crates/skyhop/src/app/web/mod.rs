//! Web browsing: the ON/OFF page model over HTTP/1.0 or HTTP/1.1.
//!
//! A session is a sequence of pages separated by user think times. A page is
//! a main object and, once the main object has arrived (the browser has
//! parsed it), its inline objects. Every object is one request (client to
//! server, a reverse stream) and one reply (server to client, a forward
//! stream); the server answers when the whole request has arrived, and the
//! object is complete when the last byte of its reply has arrived in order
//! at the client. The flow's `from` node is the server, `to` the client.
//!
//! Connections (each a pair of streams: requests one way, replies the other,
//! over the same legs and proxies):
//! - HTTP/1.0: one new connection per object, opened with a three-way
//!   handshake; the main object on one, then the inline objects over up to
//!   `parallel` connections at once, a new one as each finishes.
//! - HTTP/1.1: one persistent connection for the whole session, opened with
//!   the first request; requests go one at a time (no pipelining), each
//!   after the previous reply.
//!
//! Distributions (the page model of the web-traffic studies; defaults in
//! [`WebSpec::default`]):
//! - request size: bimodal, a large peak near 250 B and a smaller one near
//!   1 KB (each peak normal with a standard deviation of `spread` × its
//!   centre; whole bytes, at least 1);
//! - reply (object) size: Pareto with shape α and scale k = 1 KB (whole
//!   bytes, rounded up; optionally capped);
//! - inline objects per page: Gamma with mean 5.55 and standard deviation
//!   11.4, rounded to the nearest integer;
//! - think time: Pareto with k = 1 s and α = 1.5.
//!
//! Results per object and per page: response times (request issued to last
//! reply byte; page: main request issued to last object of the page),
//! summaries as scalars of the flow's result and the full lists as its
//! tables `objects` and `pages`.
//!
//! Files: `model.rs` (the page model and its sampler), `section.rs` (the
//! scenario table `flows.<id>.web`), this file (the session).

mod model;
mod section;

pub use model::{Http, WebSampler, WebSpec};
pub use section::{HttpVersion, WebSection};

use super::{
    AppBounds, AppIo, AppReport, AppSpecOps, Application, Cell, RunShape, StreamDir, Table,
};
use crate::engine::time::{Dur, Time};

impl AppSpecOps for WebSpec {
    type Built = Box<WebSession>;
    fn build(&self, seed: u64, flow: &str) -> Box<WebSession> {
        Box::new(WebSession::new(self, seed, flow))
    }
    fn finite(&self) -> bool {
        self.pages.is_some()
    }
    fn describe(&self) -> String {
        let http = match self.http {
            Http::V10 { parallel } => format!("HTTP/1.0, {parallel} parallel"),
            Http::V11 => "HTTP/1.1 persistent".into(),
        };
        let pages = self
            .pages
            .map_or("pages until the run stops".into(), |n| format!("{n} pages"));
        let objects = self
            .object_size
            .map_or(String::new(), |b| format!(", one {b} B object per page"));
        format!("web sessions ({http}, {pages}{objects})")
    }
    fn opens_stream_at_start(&self) -> bool {
        false
    }
    /// An object is a request and its reply: at least one round trip, one
    /// at a time per connection (HTTP/1.0: `parallel` connections at once,
    /// each new one opened per object and kept). A page is at least one
    /// round trip and one think time (at least `think_k`), and holds the
    /// main object and its inline objects: at most the Gamma count's mean
    /// plus 30 standard deviations (its exponential tail makes more a
    /// chance below 10^-50 per page).
    fn bounds(&self, run: &RunShape) -> AppBounds {
        let (at_once, per_object) = match self.http {
            Http::V10 { parallel } => (parallel as u64, true),
            Http::V11 => (1, false),
        };
        let by_time = run.rounds().saturating_mul(at_once);
        let thinks = run.duration_s / self.think_k_s.max(1e-9);
        let pages = [
            Some(run.rounds()),
            self.pages,
            (thinks < 1e18).then(|| thinks as u64 + 1),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(u64::MAX);
        let per_page = match self.object_size {
            Some(_) => 1,
            None => {
                let q = self.inline_mean + 30.0 * self.inline_sd;
                if q.is_finite() && q < 1e15 {
                    q.max(0.0).round() as u64 + 1
                } else {
                    u64::MAX / 4
                }
            }
        };
        let objects = by_time.min(pages.saturating_mul(per_page));
        AppBounds {
            records: objects.saturating_add(pages),
            connections: if per_object { objects } else { 1 },
            small_packets: objects.saturating_mul(2),
            datagrams: None,
        }
    }
}

/// One connection: its request stream and reply stream.
struct WebConn {
    req: usize,
    rep: usize,
    /// Request bytes handed to the request stream so far, and the reply's.
    req_sent: u64,
    rep_sent: u64,
    /// The object in progress (index into `objects`).
    busy: Option<usize>,
}

/// What a stream carries.
#[derive(Clone, Copy)]
enum Role {
    Request(usize),
    Reply(usize),
}

struct Obj {
    page: u64,
    request_bytes: u64,
    reply_bytes: u64,
    requested: Time,
    /// The request has fully arrived at the server (reply sent).
    served: bool,
    completed: Option<Time>,
    conn: usize,
}

struct Page {
    started: Time,
    /// Objects of the page (index range into `objects`), main first.
    first: usize,
    count: usize,
    /// Objects not yet requested (inline objects waiting for a connection).
    queued: Vec<usize>,
    done: usize,
    completed: Option<Time>,
}

pub struct WebSession {
    spec: WebSpec,
    rng: WebSampler,
    conns: Vec<WebConn>,
    roles: Vec<Role>,
    objects: Vec<Obj>,
    pages: Vec<Page>,
    /// Next page start (after a think time).
    next_page: Option<Time>,
    done: bool,
}

impl WebSession {
    pub fn new(spec: &WebSpec, seed: u64, name: &str) -> WebSession {
        WebSession {
            rng: WebSampler::new(spec, seed, name),
            spec: spec.clone(),
            conns: Vec::new(),
            roles: Vec::new(),
            objects: Vec::new(),
            pages: Vec::new(),
            next_page: None,
            done: false,
        }
    }

    /// Begin page `pages.len()` at `now`: draw its objects, request the main one.
    fn start_page(&mut self, now: Time, io: &mut AppIo) {
        self.next_page = None;
        let page = self.pages.len() as u64;
        let (main, inline) = match self.spec.object_size {
            Some(size) => (size, 0),
            None => {
                let main = self.rng.reply();
                (main, self.rng.inline())
            }
        };
        let first = self.objects.len();
        let count = 1 + inline as usize;
        for i in 0..count {
            let reply_bytes = if i == 0 { main } else { self.rng.reply() };
            let request_bytes = self.spec.request_size.unwrap_or_else(|| self.rng.request());
            self.objects.push(Obj {
                page,
                request_bytes,
                reply_bytes,
                requested: Time::MAX,
                served: false,
                completed: None,
                conn: usize::MAX,
            });
        }
        self.pages.push(Page {
            started: now,
            first,
            count,
            queued: (first + 1..first + count).rev().collect(),
            done: 0,
            completed: None,
        });
        self.request(now, first, io);
    }

    /// A connection for a new request: HTTP/1.1 reuses its one connection
    /// (opening it the first time); HTTP/1.0 opens a new one.
    fn connection(&mut self, io: &mut AppIo) -> usize {
        if self.spec.http == Http::V11 && !self.conns.is_empty() {
            return 0;
        }
        let rep = io.open(StreamDir::Forward, false);
        let req = io.open(StreamDir::Reverse, self.spec.handshake);
        let k = self.conns.len();
        for (s, role) in [(rep, Role::Reply(k)), (req, Role::Request(k))] {
            if self.roles.len() <= s {
                self.roles.resize(s + 1, Role::Reply(usize::MAX));
            }
            self.roles[s] = role;
        }
        self.conns.push(WebConn {
            req,
            rep,
            req_sent: 0,
            rep_sent: 0,
            busy: None,
        });
        k
    }

    fn request(&mut self, now: Time, obj: usize, io: &mut AppIo) {
        let k = self.connection(io);
        let c = &mut self.conns[k];
        c.busy = Some(obj);
        let o = &mut self.objects[obj];
        o.requested = now;
        o.conn = k;
        c.req_sent += o.request_bytes;
        io.send(c.req, o.request_bytes);
    }

    /// Inline objects in flight on page `p`.
    fn in_flight(&self, p: usize) -> usize {
        let pg = &self.pages[p];
        (pg.first..pg.first + pg.count)
            .filter(|&i| {
                self.objects[i].requested != Time::MAX && self.objects[i].completed.is_none()
            })
            .count()
    }

    /// Request what the connection rules allow of page `p`'s waiting objects.
    fn fill(&mut self, now: Time, p: usize, io: &mut AppIo) {
        let limit = match self.spec.http {
            Http::V10 { parallel } => parallel as usize,
            Http::V11 => 1,
        };
        while self.in_flight(p) < limit {
            let Some(obj) = self.pages[p].queued.pop() else {
                break;
            };
            self.request(now, obj, io);
        }
    }

    fn object_done(&mut self, now: Time, obj: usize, io: &mut AppIo) {
        self.objects[obj].completed = Some(now);
        let k = self.objects[obj].conn;
        self.conns[k].busy = None;
        if let Http::V10 { .. } = self.spec.http {
            // HTTP/1.0: the server closes the connection after the reply
            // (both of its streams are finished).
            io.close(self.conns[k].rep);
            io.close(self.conns[k].req);
        }
        let p = self.objects[obj].page as usize;
        self.pages[p].done += 1;
        if self.pages[p].done < self.pages[p].count {
            // The main object's arrival releases the inline objects; an
            // inline object's arrival frees a connection for the next.
            self.fill(now, p, io);
            return;
        }
        self.pages[p].completed = Some(now);
        let limit = self.spec.pages.unwrap_or(u64::MAX);
        if self.pages.len() as u64 >= limit {
            self.done = true;
        } else {
            let think = Dur::from_secs_f64(self.rng.think_s());
            self.next_page = Some(now + think);
        }
    }
}

impl Application for WebSession {
    fn start(&mut self, now: Time, io: &mut AppIo) {
        self.start_page(now, io);
    }

    fn on_delivered(&mut self, now: Time, stream: usize, _bytes: u64, total: u64, io: &mut AppIo) {
        match self.roles.get(stream).copied() {
            Some(Role::Request(k)) => {
                // At the server: the whole request has arrived -> reply.
                let c = &self.conns[k];
                if total > c.req_sent {
                    io.fail(format!(
                        "{total} request bytes arrived, {} were sent",
                        c.req_sent
                    ));
                    return;
                }
                if total < c.req_sent {
                    return;
                }
                let Some(obj) = c.busy else { return };
                let o = &mut self.objects[obj];
                if o.served {
                    return;
                }
                o.served = true;
                let c = &mut self.conns[k];
                c.rep_sent += o.reply_bytes;
                io.send(c.rep, o.reply_bytes);
            }
            Some(Role::Reply(k)) if k != usize::MAX => {
                // At the client.
                let c = &self.conns[k];
                if total > c.rep_sent {
                    io.fail(format!(
                        "{total} reply bytes arrived, {} were sent",
                        c.rep_sent
                    ));
                    return;
                }
                if total == c.rep_sent {
                    if let Some(obj) = c.busy {
                        self.object_done(now, obj, io);
                    }
                }
            }
            _ => io.fail(format!("bytes on stream {stream}, which carries nothing")),
        }
    }

    fn on_timer(&mut self, now: Time, io: &mut AppIo) {
        if self.next_page.is_some_and(|t| t <= now) {
            self.start_page(now, io);
        }
    }

    fn poll_at(&self) -> Option<Time> {
        self.next_page
    }

    fn done(&self) -> bool {
        self.done
    }

    fn report(&self, _end: Time) -> AppReport {
        let secs = |a: Time, b: Time| b.since(a).as_secs_f64();
        let mut objects = Table::new(&[
            "page",
            "request_bytes",
            "reply_bytes",
            "requested_at_s",
            "response_time_s",
            "connection",
        ]);
        // Response times of completed objects and pages, in order.
        let (mut ot, mut pt) = (Vec::new(), Vec::new());
        for o in self.objects.iter().filter(|o| o.requested != Time::MAX) {
            let response = o.completed.map(|t| secs(o.requested, t));
            ot.extend(response);
            objects.push(vec![
                o.page.into(),
                o.request_bytes.into(),
                o.reply_bytes.into(),
                o.requested.as_secs_f64().into(),
                response.into(),
                (o.conn as u64).into(),
            ]);
        }
        let mut pages = Table::new(&["objects", "bytes", "started_at_s", "response_time_s"]);
        for p in &self.pages {
            let response = p.completed.map(|t| secs(p.started, t));
            pt.extend(response);
            let bytes: u64 = self.objects[p.first..p.first + p.count]
                .iter()
                .map(|o| o.reply_bytes)
                .sum();
            pages.push(vec![
                (p.count as u64).into(),
                bytes.into(),
                p.started.as_secs_f64().into(),
                response.into(),
            ]);
        }
        let mut r = AppReport::default();
        r.add_scalar("objects_completed", ot.len() as u64);
        r.add_scalar("objects_incomplete", (objects.len() - ot.len()) as u64);
        summary(&mut r, "object_response", &mut ot);
        r.add_scalar("pages_completed", pt.len() as u64);
        summary(&mut r, "page_response", &mut pt);
        r.add_scalar("connections_opened", self.conns.len() as u64);
        r.add_table("objects", objects);
        r.add_table("pages", pages);
        r
    }
}

/// `{what}_mean_s`, `_p50_s`, `_p95_s` and `_max_s` of `v` (nearest-rank
/// percentiles: the smallest value with at least q·n values at or below
/// it); nothing when `v` is empty.
fn summary(r: &mut AppReport, what: &str, v: &mut [f64]) {
    if v.is_empty() {
        return;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let rank = |q: f64| v[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
    let mean = v.iter().sum::<f64>() / n as f64;
    let stats: [(&str, Cell); 4] = [
        ("mean", mean.into()),
        ("p50", rank(0.5).into()),
        ("p95", rank(0.95).into()),
        ("max", v[n - 1].into()),
    ];
    for (stat, x) in stats {
        r.add_scalar(&format!("{what}_{stat}_s"), x);
    }
}
