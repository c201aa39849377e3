#[derive(invite::Discoverable)]
enum Shape {
    Circle(f64),
    Square(f64),
}

#[derive(invite::Discoverable)]
struct Pair<T> {
    a: T,
    b: T,
}

struct Opaque;

#[derive(invite::Discoverable)]
struct Holder {
    inner: Opaque,
}

fn main() {}
