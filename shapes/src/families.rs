//! Functions that macros make: a `macro_rules!` family of free functions (one per float type),
//! a family of trait impls and of inherent impls for types the macro is given, a function
//! whose attribute comes from the macro's caller, and functions a procedural macro writes.

use crate::off_by;

/// Totals of a slice of a float type.
macro_rules! totals {
    ($($name:ident: $t:ty => $site:literal),* $(,)?) => {
        $(
            /// The total of `xs`, one function per float type.
            #[invite::metamorphic(
                $name(&xs.iter().map(|x| 2.0 * x).collect::<Vec<$t>>()) == 2.0 * result
            )]
            pub fn $name(xs: &[$t]) -> $t {
                let total: $t = xs.iter().sum();
                total + off_by($site) as $t
            }
        )*
    };
}

totals! {
    total_f32: f32 => "invite_shapes::families::total_f32",
    total_f64: f64 => "invite_shapes::families::total_f64",
}

/// The width of a range of values.
pub trait Width {
    /// The distance between the bounds.
    fn width(&self) -> f64;
}

/// A range of one numeric type.
#[derive(Clone, Debug)]
pub struct Range<T> {
    /// The lower bound.
    pub lo: T,
    /// The upper bound.
    pub hi: T,
}

/// `Width` for the ranges of each numeric type; each impl is a site of its own.
macro_rules! widths {
    ($($t:ty),*) => {
        $(
            impl Width for Range<$t> {
                #[invite::metamorphic(
                    Range { lo: self.lo * 2 as $t, hi: self.hi * 2 as $t }.width() == 2.0 * result
                )]
                fn width(&self) -> f64 {
                    let site = concat!("<invite_shapes::families::Range<", stringify!($t),
                        "> as Width>::width");
                    (self.hi - self.lo) as f64 + off_by(site)
                }
            }
        )*
    };
}

widths!(f64, i32);

/// A newtype over a vector of each element type, with a method: inherent impls a macro makes
/// for types it defines.
macro_rules! columns {
    ($($name:ident($t:ty)),*) => {
        $(
            /// A column of values.
            #[derive(Clone, Debug)]
            pub struct $name(pub Vec<$t>);

            impl $name {
                /// The sum of the column.
                #[invite::metamorphic(
                    $name(self.0.iter().map(|x| x * 2 as $t).collect()).sum() == 2.0 * result
                )]
                pub fn sum(&self) -> f64 {
                    let site = concat!("invite_shapes::families::", stringify!($name), "::sum");
                    self.0.iter().map(|&x| x as f64).sum::<f64>() + off_by(site)
                }
            }
        )*
    };
}

columns!(Floats(f64), Ints(i64));

/// Defines a function from its parts; the attributes come from the caller, the body too.
macro_rules! define {
    ($(#[$m:meta])* fn $name:ident($x:ident: f64) -> f64 $body:block) => {
        $(#[$m])*
        pub fn $name($x: f64) -> f64 $body
    };
}

define! {
    /// `x` tripled: a function whose attribute and body the macro's caller wrote.
    #[invite::metamorphic(tripled(2.0 * x) == 2.0 * result)]
    fn tripled(x: f64) -> f64 {
        3.0 * x + off_by("invite_shapes::families::tripled")
    }
}

invite_shapes_gen::scaler!(quintupled, 5.0);
invite_shapes_gen::scaler!(septupled, 7.0);
