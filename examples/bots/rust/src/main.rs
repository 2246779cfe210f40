//! randbot in Rust: remembers the last `legal` line and answers one of its moves.
use std::io::{self, BufRead, Write};

fn main() {
    let seed = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = tinyrng::Rng::new(seed);
    let stdin = io::stdin();
    let mut out = io::stdout();
    let mut legal: Vec<String> = Vec::new();
    for line in stdin.lock().lines() {
        let line = line.unwrap_or_default();
        let line = line.trim_end();
        let reply = if line == "ugi" {
            "id name randbot-rust\nid author arena examples\nugiok".to_string()
        } else if line == "isready" {
            "readyok".to_string()
        } else if let Some(moves) = line.strip_prefix("legal ") {
            legal = moves.split_whitespace().map(String::from).collect();
            continue;
        } else if line == "go" || line.starts_with("go ") {
            let pick = if legal.is_empty() { "(none)".to_string() } else {
                legal[rng.below(legal.len())].clone()
            };
            legal.clear();
            format!("bestmove {pick}")
        } else if line == "quit" {
            return;
        } else {
            continue;
        };
        writeln!(out, "{reply}").and_then(|_| out.flush()).ok();
    }
}
