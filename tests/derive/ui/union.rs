use intent_core::Intent;

#[derive(Intent)]
union Number {
    int: u32,
    float: f32,
}

fn main() {}
