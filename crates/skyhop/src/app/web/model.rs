//! The page model of a web session and its random draws (module
//! documentation of `web/mod.rs`, "Distributions").

use crate::engine::rng::RngStream;
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
