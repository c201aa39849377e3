//! What the collector charges to the overhead budget beyond a run's start: the CPU time of
//! test children and the copy-on-write faults runs cause in the program.

use super::State;

impl State {
    /// Charges the CPU time of test children reaped since the last round (see budget.rs).
    pub(super) fn charge_children(&mut self) {
        let now = invite_sandbox::usage::children_cpu_ns();
        let new = now.saturating_sub(self.children_seen);
        self.children_seen = now;
        if new > 0 {
            self.charge_cpu(new);
        }
    }

    /// Charges test children's CPU time at `child_cpu_charge`.
    pub(super) fn charge_cpu(&mut self, cpu_ns: u64) {
        let cost = (cpu_ns as f64 * self.child_cpu_charge) as u64;
        self.children_ns += cost;
        self.budget.charge(cost);
    }

    /// Charges the copy-on-write faults of the last round, if any run was alive in it.
    pub(super) fn charge_faults(&mut self, runs_were_alive: bool) {
        let (faults, system_ns) = invite_sandbox::usage::usage();
        let new = faults.saturating_sub(self.faults_seen);
        let system = system_ns.saturating_sub(self.system_seen);
        self.faults_seen = faults;
        self.system_seen = system_ns;
        if runs_were_alive && new > 0 {
            self.cow_faults += new;
            let cost = (new * self.cow_fault_ns).max(system);
            self.cow_ns += cost;
            self.budget.charge(cost);
        }
    }
}
