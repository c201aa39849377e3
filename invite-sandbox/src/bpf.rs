//! A compact classic-BPF program for the seccomp allow list.
//!
//! The kernel verifies and compiles a filter when it is installed, at about half a microsecond
//! per instruction measured here, and test processes install it once each. A general filter
//! compiler (seccompiler) emitted 598 instructions for the earlier, smaller deny list and took
//! ~500 µs to install; this layout spends one instruction on each unconditionally allowed call
//! (all of them jump to one shared `ret allow`) and a short block on a conditional one. Each
//! conditional block ends in its own `ret`, so that no jump needs more than the 8-bit offsets
//! classic BPF allows.

use crate::policy::{Arch, Rule, BROKER_PLACEHOLDER, OPEN_WRITES, PID_PLACEHOLDER};

/// `struct seccomp_data` offsets: syscall number, architecture, arguments (little-endian).
const NR: u32 = 0;
const ARCH: u32 = 4;
fn lo(i: u32) -> u32 {
    16 + 8 * i
}
fn hi(i: u32) -> u32 {
    lo(i) + 4
}

/// `A = data[k]` (32 bits).
pub const LD_W_ABS: u16 = 0x20;
/// `pc += k`.
pub const JA: u16 = 0x05;
/// `pc += (A == k) ? jt : jf`.
pub const JEQ: u16 = 0x15;
/// `pc += (A >= k) ? jt : jf`.
pub const JGE: u16 = 0x35;
/// `pc += (A & k) ? jt : jf`.
pub const JSET: u16 = 0x45;
/// Returns `k`.
pub const RET: u16 = 0x06;

pub const RET_ALLOW: u32 = 0x7fff_0000;
pub const RET_TRAP: u32 = 0x0003_0000;
/// A trap whose handler opens the file through the broker; the data (here 1) reaches the
/// handler as `si_errno`.
pub const RET_TRAP_BROKER: u32 = RET_TRAP | 1;
pub const RET_KILL_PROCESS: u32 = 0x8000_0000;
pub const RET_ERRNO: u32 = 0x0005_0000;
/// x32 system calls are numbered from here. None is on the allow list, so default deny traps
/// them all; no separate check is needed.
#[cfg(test)]
const X32_BIT: u32 = 0x4000_0000;
/// Unconditional allows per run of jumps to a shared `ret allow` (offsets are 8 bits).
const CHUNK: usize = 200;

/// An instruction without jumps.
pub fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

/// A conditional jump.
pub fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The program: kill on a foreign architecture, run each conditional rule's block, allow the
/// unconditionally allowed calls, trap everything else.
pub fn program(arch: Arch, rules: &[(u32, Rule)]) -> Vec<libc::sock_filter> {
    let mut p = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JEQ, arch.audit(), 1, 0),
        stmt(RET, RET_KILL_PROCESS),
        stmt(LD_W_ABS, NR),
    ];
    let mut plain = Vec::new();
    for &(nr, rule) in rules {
        if rule == Rule::Allow {
            plain.push(nr);
            continue;
        }
        let block = block(rule);
        assert!(block.len() < 256, "a rule's block outgrew an 8-bit jump");
        // Not this call: skip its block. Every path through a block ends in `ret`, so the
        // accumulator still holds the number when the next rule is reached.
        p.push(jump(JEQ, nr, 0, block.len() as u8));
        p.extend(block);
    }
    for chunk in plain.chunks(CHUNK) {
        // Each `jeq` jumps over the rest of the chunk and the `ja` to the chunk's `ret allow`.
        let n = chunk.len();
        for (i, &nr) in chunk.iter().enumerate() {
            p.push(jump(JEQ, nr, (n - i) as u8, 0));
        }
        p.push(stmt(JA, 1));
        p.push(stmt(RET, RET_ALLOW));
    }
    p.push(stmt(RET, RET_TRAP));
    p
}

/// The instructions run when the number matched; each path ends in a `ret`.
fn block(rule: Rule) -> Vec<libc::sock_filter> {
    let trap = stmt(RET, RET_TRAP);
    let allow = stmt(RET, RET_ALLOW);
    let one_of = |arg: u32, values: &[u32]| {
        let n = values.len();
        let mut b = vec![stmt(LD_W_ABS, lo(arg))];
        for (i, &v) in values.iter().enumerate() {
            b.push(jump(JEQ, v, (n - i) as u8, 0));
        }
        b.push(trap);
        b.push(allow);
        b
    };
    match rule {
        Rule::Allow => vec![allow],
        Rule::Errno(errno) => vec![stmt(RET, RET_ERRNO | (errno & 0xffff))],
        Rule::NoBits { arg, mask } => {
            vec![stmt(LD_W_ABS, lo(arg)), jump(JSET, mask, 0, 1), trap, allow]
        }
        Rule::HasBit { arg, mask } => {
            assert!(mask.is_power_of_two(), "HasBit tests one bit");
            vec![stmt(LD_W_ABS, lo(arg)), jump(JSET, mask, 1, 0), trap, allow]
        }
        Rule::Not { arg, value } => {
            vec![stmt(LD_W_ABS, lo(arg)), jump(JEQ, value, 0, 1), trap, allow]
        }
        Rule::OneOf { arg, values } => one_of(arg, values),
        Rule::OwnPid { arg } => one_of(arg, &[PID_PLACEHOLDER]),
        Rule::BrokerSocket { arg } => one_of(arg, &[BROKER_PLACEHOLDER]),
        Rule::Open { arg } => vec![
            stmt(LD_W_ABS, lo(arg)),
            jump(JSET, OPEN_WRITES, 2, 0),
            jump(JSET, libc::O_PATH as u32, 2, 0),
            stmt(RET, RET_TRAP_BROKER),
            trap,
            allow,
        ],
        Rule::Zero { args } => {
            // Per argument: both halves must be zero, else jump to the trap at the end.
            let m = args.len() * 4;
            let mut b = Vec::with_capacity(m + 2);
            for &a in args {
                for off in [lo(a), hi(a)] {
                    b.push(stmt(LD_W_ABS, off));
                    let here = b.len();
                    // The trap sits at index m + 1; from here the next instruction is here + 1.
                    b.push(jump(JEQ, 0, 0, (m + 1 - (here + 1)) as u8));
                }
            }
            b.push(allow);
            b.push(trap);
            b
        }
    }
}

pub use crate::seccomp::install;

/// Runs a program on a given call the way the kernel would: the reference the unit tests check
/// the compiled layout against, on any host architecture.
pub fn evaluate(p: &[libc::sock_filter], audit: u32, nr: u32, args: [u64; 6]) -> u32 {
    let data = |off: u32| -> u32 {
        match off {
            NR => nr,
            ARCH => audit,
            o => {
                let a = args[((o - 16) / 8) as usize];
                if (o - 16) % 8 == 0 {
                    a as u32
                } else {
                    (a >> 32) as u32
                }
            }
        }
    };
    let (mut pc, mut acc) = (0usize, 0u32);
    loop {
        let i = p[pc];
        match i.code {
            LD_W_ABS => acc = data(i.k),
            RET => return i.k,
            JA => pc += i.k as usize,
            JEQ | JGE | JSET => {
                let taken = match i.code {
                    JEQ => acc == i.k,
                    JGE => acc >= i.k,
                    _ => acc & i.k != 0,
                };
                pc += usize::from(if taken { i.jt } else { i.jf });
            }
            c => panic!("unknown instruction {c:#x}"),
        }
        pc += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &[u32] = &[3, 5];

    fn rules() -> Vec<(u32, Rule)> {
        vec![
            (1, Rule::NoBits { arg: 1, mask: 0b11 }),
            (
                2,
                Rule::HasBit {
                    arg: 0,
                    mask: 0x10000,
                },
            ),
            (3, Rule::Not { arg: 0, value: 31 }),
            (4, Rule::OneOf { arg: 1, values: OK }),
            (5, Rule::OwnPid { arg: 0 }),
            (6, Rule::Zero { args: &[0, 2] }),
            (7, Rule::Errno(38)),
            (8, Rule::Allow),
            (9, Rule::Allow),
        ]
    }

    fn verdict(arch: Arch, nr: u32, args: [u64; 6]) -> u32 {
        evaluate(&program(arch, &rules()), arch.audit(), nr, args)
    }

    #[test]
    fn every_rule_allows_exactly_what_it_says_on_both_architectures() {
        for arch in [Arch::X86_64, Arch::Aarch64] {
            let allowed = |nr, a| verdict(arch, nr, a) == RET_ALLOW;
            let a = |x: u64, y: u64, z: u64| [x, y, z, 0, 0, 0];
            assert!(allowed(1, a(0, 4, 0)) && !allowed(1, a(0, 1, 0)) && !allowed(1, a(0, 2, 0)));
            assert!(allowed(2, a(0x10011, 0, 0)) && !allowed(2, a(0x11, 0, 0)));
            assert!(allowed(3, a(30, 0, 0)) && !allowed(3, a(31, 0, 0)));
            assert!(allowed(4, a(0, 3, 0)) && allowed(4, a(0, 5, 0)) && !allowed(4, a(0, 4, 0)));
            assert!(allowed(5, a(u64::from(PID_PLACEHOLDER), 0, 0)) && !allowed(5, a(1, 0, 0)));
            assert!(allowed(6, a(0, 9, 0)));
            assert!(!allowed(6, a(1, 0, 0)) && !allowed(6, a(0, 0, 1)));
            // A failing argument must land on this block's trap, not fall on through to a
            // later rule that happens to match the loaded value (8 is allowed).
            assert!(!allowed(6, a(8, 0, 0)) && !allowed(6, a(0, 0, 8)));
            assert!(
                !allowed(6, a(0, 0, 0x7fff_0000_0000)),
                "the high half of a pointer counts"
            );
            assert_eq!(verdict(arch, 7, a(0, 0, 0)), RET_ERRNO | 38);
            assert!(allowed(8, a(0, 0, 0)) && allowed(9, a(1, 2, 3)));
            assert_eq!(
                verdict(arch, 10, a(0, 0, 0)),
                RET_TRAP,
                "unlisted is denied"
            );
            assert_eq!(verdict(arch, 0, a(0, 0, 0)), RET_TRAP);
            let foreign = match arch {
                Arch::X86_64 => Arch::Aarch64,
                Arch::Aarch64 => Arch::X86_64,
            };
            let p = program(arch, &rules());
            assert_eq!(
                evaluate(&p, foreign.audit(), 8, [0; 6]),
                RET_KILL_PROCESS,
                "another architecture's numbers mean other calls"
            );
        }
        assert_eq!(
            verdict(Arch::X86_64, X32_BIT | 8, [0; 6]),
            RET_TRAP,
            "x32 numbers are trapped"
        );
    }

    #[test]
    fn long_runs_of_plain_allows_are_chunked_within_jump_range() {
        let rules: Vec<(u32, Rule)> = (1000..1000 + 2 * CHUNK as u32 + 7)
            .map(|nr| (nr, Rule::Allow))
            .collect();
        let p = program(Arch::Aarch64, &rules);
        for &(nr, _) in &rules {
            assert_eq!(evaluate(&p, Arch::Aarch64.audit(), nr, [0; 6]), RET_ALLOW);
        }
        assert_eq!(evaluate(&p, Arch::Aarch64.audit(), 999, [0; 6]), RET_TRAP);
        assert_eq!(evaluate(&p, Arch::Aarch64.audit(), 5000, [0; 6]), RET_TRAP);
    }
}
