//! The bytes of a slice of numbers, for copying them out in one go (see `travel`).

/// Numbers: no padding, and every bit pattern is a value.
pub trait Number: Copy + private::Sealed {}

mod private {
    pub trait Sealed {}
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl private::Sealed for $t {}
        impl Number for $t {}
    )*};
}

numbers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

/// The slice's memory as bytes, in the machine's order.
pub fn of_numbers<T: Number>(items: &[T]) -> &[u8] {
    // SAFETY: a number has no padding and no invalid byte, so every byte of the slice is
    // initialised; the bytes live as long as the slice, which stays borrowed, and `u8` needs no
    // alignment. `size_of_val` is the slice's length in bytes.
    unsafe { std::slice::from_raw_parts(items.as_ptr().cast::<u8>(), std::mem::size_of_val(items)) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_slice_of_numbers_is_its_bytes() {
        let xs = [1u16, 0x0302];
        let expected: &[u8] = if cfg!(target_endian = "little") {
            &[1, 0, 2, 3]
        } else {
            &[0, 1, 3, 2]
        };
        assert_eq!(super::of_numbers(&xs), expected);
        assert!(super::of_numbers::<f64>(&[]).is_empty());
    }
}
