struct Units;

impl Units {
    // Neither `self` nor `Self`: the attribute cannot tell this from a free function, and
    // rustc says how to reach it.
    #[invite::metamorphic(result >= 0.0)]
    fn metres(km: f64) -> f64 {
        1000.0 * km
    }
}

fn main() {}
