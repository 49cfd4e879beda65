use shogilab_engine::*;

#[test]
fn quick_perft() {
    for (name, conv, exp) in [
        ("shogi", Convention::Distinct, vec![30u64, 900, 25470, 719731]),
        ("chu", Convention::Lishogi, vec![36, 1296, 52599]),
    ] {
        let v = Variant::builtin(name).unwrap();
        let mut pos = Position::start(&v);
        let mut p = Perft::new(conv);
        for (d, e) in exp.iter().enumerate() {
            let n = p.count(&mut pos, d as u32 + 1);
            println!("{name} depth {} = {n}", d + 1);
            assert_eq!(n, *e, "{name} depth {}", d + 1);
        }
        assert_eq!(pos.to_sfen(), v.spec.start);
    }
}
