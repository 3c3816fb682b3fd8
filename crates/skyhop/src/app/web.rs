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
//! summaries in the flow's result and the full lists in `objects` / `pages`.

use super::{AppIo, Application, StreamDir};
use crate::engine::rng::RngStream;
use crate::engine::time::{Dur, Time};
use crate::result::{FlowResult, WebObject, WebPage};
use rand_distr::{Distribution, Gamma, Normal, Pareto};

/// HTTP version and connection use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Http {
    /// Non-persistent connections, up to `parallel` at once for inline objects.
    V10 { parallel: u32 },
    /// One persistent connection, one request at a time.
    V11,
}

/// Object sizes of a session: the page model, or one fixed size.
#[derive(Clone, Debug, PartialEq)]
pub struct WebSpec {
    pub http: Http,
    /// Pages per session; `None`: until the run stops.
    pub pages: Option<u64>,
    /// Single-object mode: every page is one object of this size (no inline objects).
    pub object_size: Option<u64>,
    /// Every request this size instead of the bimodal draw.
    pub request_size: Option<u64>,
    /// Bimodal request sizes: the two peaks (bytes), the large peak's
    /// share of requests, and the spread of each peak (fraction of its centre).
    pub request_small: f64,
    pub request_large: f64,
    pub request_p_large: f64,
    pub request_spread: f64,
    /// Pareto reply sizes: shape, scale (bytes) and an optional cap.
    pub reply_alpha: f64,
    pub reply_k: f64,
    pub reply_max: Option<u64>,
    /// Gamma inline-object counts: mean and standard deviation.
    pub inline_mean: f64,
    pub inline_sd: f64,
    /// Pareto think times: shape and scale (seconds).
    pub think_alpha: f64,
    pub think_k_s: f64,
    /// Open each new connection with a three-way handshake.
    pub handshake: bool,
}

impl Default for WebSpec {
    fn default() -> Self {
        WebSpec {
            http: Http::V11,
            pages: None,
            object_size: None,
            request_size: None,
            request_small: 250.0,
            request_large: 1024.0,
            request_p_large: 0.2,
            request_spread: 0.1,
            reply_alpha: 1.1,
            reply_k: 1024.0,
            reply_max: None,
            inline_mean: 5.55,
            inline_sd: 11.4,
            think_alpha: 1.5,
            think_k_s: 1.0,
            handshake: true,
        }
    }
}

/// The random parts of the page model, each from its own stream so that
/// changing one distribution never changes another's draws.
pub struct WebSampler {
    requests: RngStream,
    replies: RngStream,
    inline: RngStream,
    think: RngStream,
    small: Normal<f64>,
    large: Normal<f64>,
    p_large: f64,
    reply: Pareto<f64>,
    reply_max: Option<u64>,
    inline_count: Option<Gamma<f64>>,
    think_time: Pareto<f64>,
}

impl WebSampler {
    /// The sampler of `spec` (its parameters are checked when the scenario
    /// is loaded; here they are known to be valid).
    pub fn new(spec: &WebSpec, seed: u64, name: &str) -> WebSampler {
        let s = |what: &str| RngStream::derive(seed, &format!("web:{name}:{what}"));
        let (m, sd) = (spec.inline_mean, spec.inline_sd);
        WebSampler {
            requests: s("request"),
            replies: s("reply"),
            inline: s("inline"),
            think: s("think"),
            small: Normal::new(spec.request_small, spec.request_spread * spec.request_small)
                .expect("valid request peak"),
            large: Normal::new(spec.request_large, spec.request_spread * spec.request_large)
                .expect("valid request peak"),
            p_large: spec.request_p_large,
            reply: Pareto::new(spec.reply_k, spec.reply_alpha).expect("valid reply Pareto"),
            reply_max: spec.reply_max,
            // Gamma with shape (m/sd)² and scale sd²/m has mean m and sd sd.
            inline_count: (m > 0.0)
                .then(|| Gamma::new((m / sd) * (m / sd), sd * sd / m).expect("valid Gamma")),
            think_time: Pareto::new(spec.think_k_s, spec.think_alpha).expect("valid think Pareto"),
        }
    }

    /// A request size in bytes (bimodal; redrawn below 1 byte).
    pub fn request(&mut self) -> u64 {
        loop {
            let large = self.requests.bernoulli(self.p_large);
            let d = if large { &self.large } else { &self.small };
            let x = d.sample(self.requests.inner()).round();
            if x >= 1.0 {
                return x as u64;
            }
        }
    }

    /// A reply (object) size in bytes: Pareto, rounded up, capped if asked.
    pub fn reply(&mut self) -> u64 {
        let x = self.reply.sample(self.replies.inner()).ceil();
        let b = if x >= u64::MAX as f64 {
            u64::MAX
        } else {
            x as u64
        };
        self.reply_max.map_or(b, |m| b.min(m))
    }

    /// The continuous Gamma draw behind an inline count.
    pub fn inline_raw(&mut self) -> f64 {
        self.inline_count
            .as_ref()
            .map_or(0.0, |g| g.sample(self.inline.inner()))
    }

    /// Inline objects of a page: the Gamma draw rounded to the nearest integer.
    pub fn inline(&mut self) -> u64 {
        self.inline_raw().round() as u64
    }

    /// A think time in seconds.
    pub fn think_s(&mut self) -> f64 {
        self.think_time.sample(self.think.inner())
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
            // HTTP/1.0: the server closes the connection after the reply.
            io.close(self.conns[k].rep);
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

    fn report(&self, _end: Time, fr: &mut FlowResult) {
        let secs = |a: Time, b: Time| b.since(a).as_secs_f64();
        let objects: Vec<WebObject> = self
            .objects
            .iter()
            .filter(|o| o.requested != Time::MAX)
            .map(|o| WebObject {
                page: o.page,
                request_bytes: o.request_bytes,
                reply_bytes: o.reply_bytes,
                requested_at_s: o.requested.as_secs_f64(),
                response_time_s: o.completed.map(|t| secs(o.requested, t)),
                connection: o.conn as u64,
            })
            .collect();
        let pages: Vec<WebPage> = self
            .pages
            .iter()
            .map(|p| WebPage {
                objects: p.count as u64,
                bytes: self.objects[p.first..p.first + p.count]
                    .iter()
                    .map(|o| o.reply_bytes)
                    .sum(),
                started_at_s: p.started.as_secs_f64(),
                response_time_s: p.completed.map(|t| secs(p.started, t)),
            })
            .collect();
        fr.set_web(objects, pages, self.conns.len() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 200_000;

    fn quantile(v: &mut [f64], q: f64) -> f64 {
        v.sort_by(f64::total_cmp);
        v[((q * v.len() as f64) as usize).min(v.len() - 1)]
    }

    fn close(x: f64, want: f64, rel: f64, what: &str) {
        assert!(
            (x - want).abs() <= rel * want.abs(),
            "{what}: {x} vs {want} (±{:.1} %)",
            rel * 100.0
        );
    }

    #[test]
    fn request_sizes_are_bimodal_with_the_given_peaks_and_share() {
        let mut s = WebSampler::new(&WebSpec::default(), 1, "f");
        let v: Vec<f64> = (0..N).map(|_| s.request() as f64).collect();
        // Mean 0.8 · 250 + 0.2 · 1024 = 404.8 B.
        close(v.iter().sum::<f64>() / N as f64, 404.8, 0.01, "mean");
        let large = v.iter().filter(|&&x| x > 600.0).count() as f64 / N as f64;
        close(large, 0.2, 0.02, "share of the 1 KB peak");
        // Each peak: normal, sd 10 % of its centre.
        let small: Vec<f64> = v.iter().copied().filter(|&x| x < 600.0).collect();
        let m = small.iter().sum::<f64>() / small.len() as f64;
        let sd = (small.iter().map(|x| (x - m).powi(2)).sum::<f64>() / small.len() as f64).sqrt();
        close(m, 250.0, 0.005, "small peak centre");
        close(sd, 25.0, 0.03, "small peak spread");
        assert!(v.iter().all(|&x| x >= 1.0));
    }

    #[test]
    fn reply_sizes_follow_the_pareto_quantiles() {
        for alpha in [1.04, 1.1, 1.14] {
            let spec = WebSpec {
                reply_alpha: alpha,
                ..Default::default()
            };
            let mut s = WebSampler::new(&spec, 2, "f");
            let mut v: Vec<f64> = (0..N).map(|_| s.reply() as f64).collect();
            assert!(v.iter().all(|&x| x >= 1024.0));
            // Quantile q of Pareto(k, α): k (1 − q)^(−1/α) (sizes rounded up: < 1 B).
            for (q, tol) in [(0.5, 0.02), (0.9, 0.02), (0.99, 0.06)] {
                let want = 1024.0 * (1.0_f64 - q).powf(-1.0 / alpha);
                close(quantile(&mut v, q), want, tol, &format!("α {alpha} q {q}"));
            }
        }
        // A cap holds.
        let spec = WebSpec {
            reply_max: Some(5000),
            ..Default::default()
        };
        let mut s = WebSampler::new(&spec, 2, "f");
        assert!((0..N)
            .map(|_| s.reply())
            .all(|x| (1024..=5000).contains(&x)));
    }

    #[test]
    fn inline_counts_follow_the_gamma_mean_and_deviation() {
        let mut s = WebSampler::new(&WebSpec::default(), 3, "f");
        let v: Vec<f64> = (0..N).map(|_| s.inline_raw()).collect();
        let m = v.iter().sum::<f64>() / N as f64;
        let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / N as f64).sqrt();
        close(m, 5.55, 0.02, "Gamma mean");
        close(sd, 11.4, 0.03, "Gamma sd");
        // The counts (draws rounded to the nearest integer) keep the mean.
        let mut s = WebSampler::new(&WebSpec::default(), 4, "f");
        let c: Vec<u64> = (0..N).map(|_| s.inline()).collect();
        close(
            c.iter().sum::<u64>() as f64 / N as f64,
            5.55,
            0.03,
            "count mean",
        );
        // Shape (5.55/11.4)² ≈ 0.24 < 1: most pages have no inline object.
        let zero = c.iter().filter(|&&x| x == 0).count() as f64 / N as f64;
        assert!(zero > 0.4, "{zero}");
    }

    #[test]
    fn think_times_follow_the_pareto_quantiles() {
        let mut s = WebSampler::new(&WebSpec::default(), 5, "f");
        let mut v: Vec<f64> = (0..N).map(|_| s.think_s()).collect();
        assert!(v.iter().all(|&x| x >= 1.0));
        for (q, tol) in [(0.5, 0.02), (0.9, 0.02), (0.99, 0.05)] {
            let want = (1.0_f64 - q).powf(-1.0 / 1.5);
            close(quantile(&mut v, q), want, tol, &format!("think q {q}"));
        }
        // Mean k α / (α − 1) = 3 s (finite; the variance is not, so loose).
        close(v.iter().sum::<f64>() / N as f64, 3.0, 0.1, "think mean");
    }

    #[test]
    fn each_distribution_draws_from_its_own_stream() {
        let a = WebSpec::default();
        let b = WebSpec {
            reply_alpha: 1.3,
            inline_mean: 2.0,
            ..Default::default()
        };
        let mut sa = WebSampler::new(&a, 9, "f");
        let mut sb = WebSampler::new(&b, 9, "f");
        for _ in 0..1000 {
            sa.reply();
            sb.reply();
            sa.inline();
            sb.inline();
            assert_eq!(sa.request(), sb.request());
            assert_eq!(sa.think_s(), sb.think_s());
        }
    }
}
