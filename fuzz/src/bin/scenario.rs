#[path = "../harness.rs"]
mod harness;

fn main() {
    afl::fuzz!(|data: &[u8]| harness::scenario(data));
}
