use super::*;
use std::io::{BufReader, Read};

/// The fast path rescans an unfinished expression from its start after
/// each refill: it gives up past `SCAN_MAX` of text, so one huge
/// expression is read in one pass by the general reader, not in a
/// number of passes that grows with its size.
#[test]
fn the_fast_path_gives_up_on_an_expression_longer_than_its_window() {
    let text = format!("(List {})", "(Concept \"member\") ".repeat(100_000));
    let mut parser = Parser::new(BufReader::with_capacity(1024, text.as_bytes()));
    let mut tries = 0;
    assert!(parser
        .scan_next(|_| {
            tries += 1;
            Scan::More
        })
        .is_none());
    assert!(tries <= SCAN_MAX / 1024 + 2, "{tries} tries");
    assert_eq!(parser.bytes_read(), 0);
    assert!(matches!(parser.next_expr(), Ok(Some(Expr::List(items, _))) if items.len() == 100_001));
}

#[test]
fn positions_counted_a_word_at_a_time_are_those_counted_a_byte_at_a_time() {
    let text = "ab ü\n✓ (Concept \"ünïcödé ✓\")\n\n  x".repeat(3);
    let start = Pos { line: 3, col: 7 };
    for from in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
        for to in (from..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let bytes = &text.as_bytes()[from..to];
            assert_eq!(advance_wide(start, bytes), advance(start, bytes), "{:?}", &text[from..to]);
        }
    }
}

const EXAMPLE: &str = r#"; a comment
(EvaluationLink (stv 0.9 0.8)
  (PredicateNode "breathe")
  (ListLink
    (ConceptNode "birds" (av 0 0 0))   ; trailing comment
    (Concept "air")))
(ConceptNode "x" (alist (cons (PredicateNode "k") (FloatValue 1 2.5 -3e-7))))
(cog-node 'ConceptNode "a")
(InheritanceLink (Concept "a")(Concept "b"))
"#;

fn at(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

/// The structure without positions; numbers print as `{:?}` (`1.0`).
fn show(e: &Expr) -> String {
    match e {
        Expr::List(items, _) => format!("({})", items.iter().map(show).collect::<Vec<_>>().join(" ")),
        Expr::Symbol(s, _) => s.clone(),
        Expr::Str(s, _) => format!("{s:?}"),
        Expr::Number(x, _) => format!("{x:?}"),
        Expr::Quote(q, _) => format!("'{}", show(q)),
    }
}

fn shown(text: &str) -> Vec<String> {
    parse_str(text).unwrap().iter().map(show).collect()
}

fn error(text: &str) -> ParseError {
    parse_str(text).unwrap_err()
}

fn error_bytes(input: &[u8]) -> ParseError {
    Parser::new(input).find_map(Result::err).unwrap()
}

/// Everything a parser yields, as text (so that NaNs compare equal).
fn run<R: BufRead>(reader: R) -> Vec<String> {
    let mut parser = Parser::new(reader);
    let mut out = Vec::new();
    // One expression per input byte at most; more would mean a loop.
    for _ in 0..10_000 {
        match parser.next_expr() {
            Ok(Some(e)) => out.push(format!("{e:?} @{}", parser.bytes_read())),
            Ok(None) => return out,
            Err(e) => {
                out.push(format!("{e:?}"));
                assert_eq!(parser.next_expr(), Err(e), "errors are sticky");
                assert!(parser.next().is_none());
                return out;
            }
        }
    }
    panic!("parser did not finish");
}

/// The same results whatever the reader's buffer size.
fn assert_chunking_invariant(input: &[u8]) {
    let whole = run(input);
    for capacity in [1, 2, 3, 7] {
        assert_eq!(run(BufReader::with_capacity(capacity, input)), whole, "capacity {capacity}: {input:?}");
    }
}

#[test]
fn numbers_too_large_for_a_double_are_errors_not_infinity() {
    let digits = "9".repeat(400);
    let e = error(&format!("(Number {digits})"));
    assert!(e.message.contains("too large for a double") && e.message.contains("999..."), "{e}");
    assert_eq!((e.line, e.col), (1, 9));
    assert!(error("(Number 1e400)").message.contains("the number 1e400 is too large"));
    assert_eq!(shown("+inf.0 -inf.0 1e308"), ["inf", "-inf", "1e308"]);
}

#[test]
fn every_kind_with_positions() {
    let got = parse_str("(a \"s\" 1.5\n  'q)\nsym \"top\" -2 'x").unwrap();
    let expected = vec![
        Expr::List(
            vec![
                Expr::Symbol("a".into(), at(1, 2)),
                Expr::Str("s".into(), at(1, 4)),
                Expr::Number(1.5, at(1, 8)),
                Expr::Quote(Box::new(Expr::Symbol("q".into(), at(2, 4))), at(2, 3)),
            ],
            at(1, 1),
        ),
        Expr::Symbol("sym".into(), at(3, 1)),
        Expr::Str("top".into(), at(3, 5)),
        Expr::Number(-2.0, at(3, 11)),
        Expr::Quote(Box::new(Expr::Symbol("x".into(), at(3, 15))), at(3, 14)),
    ];
    assert_eq!(got, expected);
    assert_eq!(got[0].pos(), at(1, 1));
    assert_eq!(got[4].pos(), at(3, 14));
    assert_eq!(shown("() (())"), ["()", "(())"]);
}

#[test]
fn example_text() {
    let got = parse_str(EXAMPLE).unwrap();
    let text: Vec<String> = got.iter().map(show).collect();
    assert_eq!(
        text,
        [
            r#"(EvaluationLink (stv 0.9 0.8) (PredicateNode "breathe") (ListLink (ConceptNode "birds" (av 0.0 0.0 0.0)) (Concept "air")))"#,
            r#"(ConceptNode "x" (alist (cons (PredicateNode "k") (FloatValue 1.0 2.5 -3e-7))))"#,
            r#"(cog-node 'ConceptNode "a")"#,
            r#"(InheritanceLink (Concept "a") (Concept "b"))"#,
        ]
    );
    assert_eq!(got[0].pos(), at(2, 1));
    let Expr::List(items, _) = &got[0] else { panic!() };
    let Expr::List(list_link, pos) = &items[3] else { panic!() };
    assert_eq!(*pos, at(4, 3));
    let Expr::List(air, pos) = &list_link[2] else { panic!() };
    assert_eq!(*pos, at(6, 5));
    assert_eq!(air[1], Expr::Str("air".into(), at(6, 14)));
    let Expr::List(items, _) = &got[2] else { panic!() };
    assert_eq!(items[1], Expr::Quote(Box::new(Expr::Symbol("ConceptNode".into(), at(8, 12))), at(8, 11)));
    let Expr::List(items, _) = &got[3] else { panic!() };
    assert_eq!(items[2].pos(), at(9, 31));
}

#[test]
fn line_comments() {
    assert_eq!(shown("; only a comment"), Vec::<String>::new());
    assert_eq!(shown("a;b\n;;\nc ; d"), ["a", "c"]);
    assert_eq!(shown("(a ; ) not a close\n b)"), ["(a b)"]);
    assert_eq!(parse_str("; é\n  x").unwrap()[0].pos(), at(2, 3));
}

#[test]
fn block_comments() {
    assert_eq!(shown("#| a |# x"), ["x"]);
    assert_eq!(shown("#| a #| nested |# still ) comment |# x"), ["x"]);
    assert_eq!(shown("#| a|b #c ||# y"), ["y"]);
    assert_eq!(shown("(a #|(|# b)"), ["(a b)"]);
    assert_eq!(shown("#||# z #|#|#||#|#|# w"), ["z", "w"]);
    assert_eq!(parse_str("#| one\ntwo é\n |# z").unwrap()[0].pos(), at(3, 5));
}

/// Errors quote the input with its control characters escaped: a
/// REPL transcript's colour codes are not replayed on the terminal.
#[test]
fn errors_escape_control_characters() {
    let e = error("(Concept \"a\")\n(\u{1b}[0;34m\"b\" . 1 2)");
    let shown = e.to_string();
    assert!(!shown.chars().any(char::is_control), "{shown:?}");
    assert!(shown.contains("\\x1b"), "{shown}");
}

/// Guile's `#! !#` comment, as script headers use it: not nested, and
/// anything but a reader directive may follow the `#!`.
#[test]
fn shebang_comments() {
    assert_eq!(shown("#!/usr/bin/env guile\n-s\n!#\n(a)"), ["(a)"]);
    assert_eq!(shown("#! x ! y #! z !# w"), ["w"]);
    assert_eq!(shown("(a #!!# b)"), ["(a b)"]);
    assert_eq!(parse_str("#! one\ntwo é\n !# z").unwrap()[0].pos(), at(3, 5));
    // The byte reader, a byte at a time: `!` and `#` in separate reads.
    let mut chunked = Parser::new(std::io::BufReader::with_capacity(1, &b"#! a !# b"[..]));
    assert!(matches!(chunked.next(), Some(Ok(Expr::Symbol(s, _))) if s == "b"));
    let e = error("#! never closed");
    assert!(e.message.contains("inside a `#!` comment; it starts at line 1, column 1"), "{}", e.message);
    let e = error("#!fold-case (Concept \"a\")");
    assert!(e.message.contains("`#!fold-case` is not supported"), "{}", e.message);
    assert_eq!(shown("#!fold-cases !# c"), ["c"], "only the directives themselves");
}

#[test]
fn datum_comments() {
    assert_eq!(shown("#;(a b) c"), ["c"]);
    assert_eq!(shown("(a #; b c)"), ["(a c)"]);
    assert_eq!(shown("(a #;(b (c)) d)"), ["(a d)"]);
    assert_eq!(shown("#;#;a b c"), ["c"]);
    assert_eq!(shown("'#;a b"), ["'b"]);
    assert_eq!(shown("#; ; comment\n #| block |# a b"), ["b"]);
    assert_eq!(shown("#;'a b"), ["b"]);
    // Only at the start of a token; `;` ends a token anyway.
    assert_eq!(shown("#t #f # #x10 a#|b a#;b c"), ["#t", "#f", "#", "#x10", "a#|b", "a#"]);
}

#[test]
fn escapes() {
    let text = r#""q\" b\\ n\n t\t r\r z\0 a\a x\x41; \x3bb; \x1F600; \x0;""#;
    let [Expr::Str(s, _)] = &parse_str(text).unwrap()[..] else { panic!() };
    assert_eq!(s, "q\" b\\ n\n t\t r\r z\0 a\x07 xA \u{3bb} \u{1F600} \0");
    assert_eq!(shown("\"raw\nnew line é\""), ["\"raw\\nnew line é\""]);
    assert_eq!(shown(r#""" "\\" "\"""#), [r#""""#, r#""\\""#, r#""\"""#]);
}

#[test]
fn bad_escapes() {
    let e = error(r#"(x "ab\qc")"#);
    assert_eq!((e.line, e.col), (1, 7));
    assert!(e.message.contains("unknown escape `\\q`"), "{e}");
    assert_eq!(e.snippet, r#"\qc")"#);
    let e = error("\"line1\nab\\q\"");
    assert_eq!((e.line, e.col), (2, 3));
    let e = error(r#""é\é""#);
    assert_eq!((e.line, e.col), (1, 3));
    assert!(e.message.contains("`\\é`"), "{e}");
    let e = error("\"a\\\nb\"");
    assert!(e.message.contains("U+000A"), "{e}");
    for bad in [r#""\x41""#, r#""\x;""#, r#""\xg;""#, r#""\x41 ;""#] {
        let e = error(bad);
        assert_eq!((e.line, e.col), (1, 2), "{bad}");
        assert!(e.message.contains("bad `\\x` escape"), "{e}");
    }
    for bad in [r#""\xD800;""#, r#""\x110000;""#, r#""\xFFFFFFFFFFFF;""#] {
        let e = error(bad);
        assert!(e.message.contains("not a Unicode character"), "{e}");
    }
}

proptest::proptest! {
    /// Decimals read as the standard library reads them: the same
    /// correctly rounded double, bit for bit, in and out of its range.
    #[test]
    fn decimals_read_as_the_standard_library_reads_them(
        sign in "[-+]?",
        int in "[0-9]{0,20}",
        frac in proptest::option::of("[0-9]{0,20}"),
        exp in proptest::option::of("[eE][-+]?[0-9]{1,3}|e0{20}1"),
    ) {
        let token = format!("{sign}{int}{}{}", frac.map(|f| format!(".{f}")).unwrap_or_default(), exp.unwrap_or_default());
        proptest::prop_assert_eq!(parse_number(&token).map(f64::to_bits), token.parse::<f64>().ok().map(f64::to_bits), "{}", token);
    }

    /// Any token of digits, points, signs, exponents and the bytes
    /// either side of the digits is a number exactly when the standard
    /// library reads one from it, and the same one.
    #[test]
    fn tokens_near_decimals_read_as_the_standard_library_reads_them(token in "[0-9./:eE+-]{1,26}") {
        proptest::prop_assert_eq!(parse_number(&token).map(f64::to_bits), token.parse::<f64>().ok().map(f64::to_bits), "{}", token);
    }
}

#[test]
fn short_decimals_round_as_the_standard_library_rounds_them() {
    for token in [
        "0.1",
        "0.3",
        "0.8904219123655771",
        "9007199254740993",
        "9007199254740992",
        "0.004142869084582945",
        "1e22",
        "1e23",
        "123456789e-22",
        "-0.0",
        "4.9e-324",
        "1.7976931348623157e308",
        "1e0000000000000000000001",
        "1234567:",
        "12:45678",
        "1234567:8",
        "123456789:",
        "12345678/",
        "0.1234567:",
        "1e-99999999999999999999999",
        "0.00e-9999999999999999999",
    ] {
        assert_eq!(parse_number(token).map(f64::to_bits), token.parse::<f64>().ok().map(f64::to_bits), "{token}");
    }
}

#[test]
fn numbers_and_symbols() {
    let numbers = [
        ("1", 1.0),
        ("-2.5", -2.5),
        ("+3", 3.0),
        (".5", 0.5),
        ("1e-7", 1e-7),
        ("2.5E+10", 2.5e10),
        ("1.", 1.0),
        ("-.5", -0.5),
        ("1.e5", 1e5),
        ("007", 7.0),
        ("-0", -0.0),
        ("+inf.0", f64::INFINITY),
        ("-inf.0", f64::NEG_INFINITY),
    ];
    for (text, value) in numbers {
        assert_eq!(parse_str(text).unwrap(), [Expr::Number(value, at(1, 1))], "{text}");
    }
    for text in ["+nan.0", "-nan.0"] {
        assert!(matches!(parse_str(text).unwrap()[..], [Expr::Number(x, _)] if x.is_nan()), "{text}");
    }
    let symbols =
        ["-", "+", "1+", "...", ".", "inf.0", "+inf", "nan", "inf", "1e", "e5", "1.2.3", "--1", "+-1", "1/2", "0x10", "1e+", ".e1", "+.", "1_000", "2.5f"];
    for text in symbols {
        assert_eq!(parse_str(text).unwrap(), [Expr::Symbol(text.into(), at(1, 1))], "{text}");
    }
    assert_eq!(shown("(1)(-1)'1"), ["(1.0)", "(-1.0)", "'1.0"]);
}

#[test]
fn unbalanced_close() {
    let mut parser = Parser::new("(a)\n  (b))".as_bytes());
    assert_eq!(show(&parser.next_expr().unwrap().unwrap()), "(a)");
    assert_eq!(show(&parser.next_expr().unwrap().unwrap()), "(b)");
    let e = parser.next_expr().unwrap_err();
    assert_eq!((e.line, e.col), (2, 6));
    assert!(e.message.contains("unbalanced `)`"), "{e}");
    assert_eq!(e.snippet, ")");
    assert_eq!(e.to_string(), format!("line 2, column 6: {} (near `)`)", e.message));
    assert_eq!(parser.next_expr(), Err(e));
    assert!(parser.next().is_none());
    let e = error(") (a)");
    assert_eq!((e.line, e.col, e.snippet.as_str()), (1, 1, ") (a)"));
}

#[test]
fn unclosed_list() {
    let e = error("(a\n  (b \"x\"");
    assert_eq!((e.line, e.col), (2, 9));
    assert!(e.message.contains("end of input inside a list"), "{e}");
    assert!(e.message.contains("line 2, column 3"), "{e}");
    assert_eq!(e.snippet, "(b \"x\"");
    let e = error("(a (b) ");
    assert!(e.message.contains("line 1, column 1"), "{e}");
    assert_eq!((e.line, e.col, e.snippet.as_str()), (1, 8, "(a (b)"));
    let e = error(&format!("(Concept \"{}\"", "long".repeat(20)));
    assert_eq!(e.snippet.chars().count(), SNIPPET_CHARS);
}

#[test]
fn unclosed_string() {
    let e = error("(a \"unclosed\nmore");
    assert_eq!((e.line, e.col), (2, 5));
    assert!(e.message.contains("end of input inside a string"), "{e}");
    assert!(e.message.contains("line 1, column 4"), "{e}");
    assert_eq!(e.snippet, "\"unclosed");
    let e = error("\"ends in a backslash\\");
    assert!(e.message.contains("end of input inside a string"), "{e}");
    assert_eq!((e.line, e.col), (1, 22));
}

#[test]
fn quote_without_datum() {
    let e = error("(a ')");
    assert_eq!((e.line, e.col, e.snippet.as_str()), (1, 5, ")"));
    assert!(e.message.contains("`'` at line 1, column 4"), "{e}");
    let e = error("x\n  '");
    assert_eq!((e.line, e.col, e.snippet.as_str()), (2, 4, "'"));
    assert!(e.message.contains("end of input after the `'` at line 2, column 3"), "{e}");
    let e = error("(a #;)");
    assert!(e.message.contains("`#;` at line 1, column 4"), "{e}");
    let e = error("#; ; nothing");
    assert!(e.message.contains("end of input after the `#;`"), "{e}");
}

#[test]
fn unclosed_block_comment() {
    let e = error("a\n #| x #| y |#\n");
    assert_eq!((e.line, e.col, e.snippet.as_str()), (3, 1, "#|"));
    assert!(e.message.contains("`#|` comment; it starts at line 2, column 2"), "{e}");
    for text in ["#|", "#||", "#|#", "#| |"] {
        assert!(error(text).message.contains("`#|` comment"), "{text}");
    }
}

#[test]
fn invalid_utf8() {
    let cases: [(&[u8], (u32, u32)); 7] = [
        (b"(a b\xFFc)", (1, 5)),
        (b"\"\xC3\xA9\xFF\"", (1, 3)),
        (b"x\n; \xC3(\n", (2, 3)),
        (b"#| \xE2\x82 |#", (1, 4)),
        (b"abc\xE2\x82", (1, 4)),
        (b"(\"\xED\xA0\x80\")", (1, 3)),
        (b"\xC0\xAF", (1, 1)),
    ];
    for (input, (line, col)) in cases {
        let e = error_bytes(input);
        assert_eq!((e.line, e.col), (line, col), "{input:?}");
        assert!(e.message.contains("invalid UTF-8"), "{e}");
        assert_chunking_invariant(input);
    }
    let e = error_bytes(b"ok \xFFbad\nnext");
    assert_eq!(e.snippet, "\u{FFFD}bad");
    // What comes before the bad bytes is still returned.
    let mut parser = Parser::new(&b"(a) (b) \xFF"[..]);
    assert!(parser.next_expr().unwrap().is_some());
    assert!(parser.next_expr().unwrap().is_some());
    assert!(parser.next_expr().is_err());
}

#[test]
fn crlf_line_endings() {
    let got = parse_str("(a\r\n  b)\r\n; c\r\n\"x\r\ny\"\r\nz\r\n").unwrap();
    assert_eq!(got[0], Expr::List(vec![Expr::Symbol("a".into(), at(1, 2)), Expr::Symbol("b".into(), at(2, 3))], at(1, 1)));
    assert_eq!(got[1], Expr::Str("x\r\ny".into(), at(4, 1)));
    assert_eq!(got[2], Expr::Symbol("z".into(), at(6, 1)));
}

#[test]
fn multibyte_columns() {
    let got = parse_str("(Concept \"éλ😀\") ü x").unwrap();
    assert_eq!(got[0], Expr::List(vec![Expr::Symbol("Concept".into(), at(1, 2)), Expr::Str("éλ😀".into(), at(1, 10))], at(1, 1)));
    assert_eq!(got[1], Expr::Symbol("ü".into(), at(1, 17)));
    assert_eq!(got[2], Expr::Symbol("x".into(), at(1, 19)));
    let e = error("λλ \"é\\q\"");
    assert_eq!((e.line, e.col), (1, 6));
    let e = error("😀😀)");
    assert_eq!((e.line, e.col), (1, 3));
}

/// Walks a chain of single-item lists without recursion, taking it apart.
fn depth_of(mut expr: Expr) -> usize {
    let mut depth = 0;
    loop {
        match expr {
            Expr::List(mut items, pos) => {
                depth += 1;
                assert_eq!(pos, at(1, u32::try_from(depth).unwrap()));
                match items.pop() {
                    Some(inner) => expr = inner,
                    None => return depth,
                }
            }
            Expr::Quote(inner, _) => {
                depth += 1;
                expr = *inner;
            }
            _ => return depth,
        }
    }
}

#[test]
fn messages_show_the_offending_text_only_when_there_is_some() {
    let e = ParseError { line: 3, col: 4, message: "bad".into(), snippet: "(x".into() };
    assert_eq!(e.to_string(), "line 3, column 4: bad (near `(x`)");
    let e = ParseError { snippet: String::new(), ..e };
    assert_eq!(e.to_string(), "line 3, column 4: bad");
}

#[test]
fn deep_nesting() {
    const N: usize = MAX_NESTING;
    let deep = format!("{}{}", "(".repeat(N), ")".repeat(N));
    let mut got = parse_str(&deep).unwrap();
    assert_eq!(depth_of(got.pop().unwrap()), N);

    let e = error(&"(".repeat(N));
    assert_eq!((e.line, e.col), (1, N as u32 + 1));
    assert!(e.message.contains(&format!("line 1, column {N}")), "{e}");
    assert_eq!(e.snippet, "(");

    // Unclosed around a deep tree: the tree is dropped without recursion.
    let e = error(&format!("(x {}{}", "(".repeat(N - 1), ")".repeat(N - 1)));
    assert!(e.message.contains("line 1, column 1 "), "{e}");
    assert!(e.snippet.starts_with("(x (((("), "{e}");

    let got = parse_str(&format!("#;{} ok", "(".repeat(N - 1) + &")".repeat(N - 1))).unwrap();
    assert_eq!(got, [Expr::Symbol("ok".into(), at(1, 2 * (N as u32 - 1) + 4))]);

    let mut got = parse_str(&format!("{}x", "'".repeat(N))).unwrap();
    assert_eq!(depth_of(got.pop().unwrap()), N);

    // One level more is refused where it starts, for lists and quotes alike.
    for deeper in [format!("{}{}", "(".repeat(N + 1), ")".repeat(N + 1)), format!("{}x", "'".repeat(N + 1))] {
        let e = error(&deeper);
        assert_eq!((e.line, e.col), (1, N as u32 + 1));
        assert!(e.message.contains("nesting deeper than"), "{e}");
    }
    // And a hundred thousand levels neither overflow the stack nor get through.
    let e = error(&"(".repeat(100_000));
    assert!(e.message.contains("nesting deeper than"), "{e}");
}

#[test]
fn tiny_buffers_give_the_same_result() {
    let mut long = String::new();
    for i in 0..3000 {
        long.push_str(&format!("(ConceptNode \"naïve-{i}\" (stv 0.{i} 1e-{}))  ; ünïcode {i}\r\n", i % 300));
    }
    // Longer than a chunk, to make the buffer grow rather than wrap.
    long.push_str(&format!("(Concept \"{}\") ", "é\\\"ab\n".repeat(20_000)));
    long.push_str(&format!("#| {} |# {}", "x".repeat(70_000), "Sym".repeat(30_000)));
    for text in [EXAMPLE, long.as_str(), "(a\r\n  b)\r\n\"x\r\ny\"", "\"\\x41;\\x3bb;\" #|é|# #;(a) b 'c", "(a (b"] {
        assert_chunking_invariant(text.as_bytes());
        let direct = parse_str(text);
        for capacity in [1, 7] {
            let chunked: Result<Vec<Expr>, ParseError> = Parser::new(BufReader::with_capacity(capacity, text.as_bytes())).collect();
            assert_eq!(chunked, direct);
        }
    }
    assert_eq!(parse_str(&long).unwrap().len(), 3002);
}

#[test]
fn progress() {
    let text = "(a)\n  (b c) ; x\n(\"é\")";
    let mut parser = Parser::new(BufReader::with_capacity(3, text.as_bytes()));
    assert_eq!((parser.bytes_read(), parser.last_complete()), (0, at(1, 1)));
    parser.next_expr().unwrap().unwrap();
    assert_eq!((parser.bytes_read(), parser.last_complete()), (3, at(1, 4)));
    parser.next_expr().unwrap().unwrap();
    assert_eq!((parser.bytes_read(), parser.last_complete()), (11, at(2, 8)));
    parser.next_expr().unwrap().unwrap();
    assert_eq!((parser.bytes_read(), parser.last_complete()), (text.len() as u64, at(3, 6)));
    assert_eq!(parser.next_expr(), Ok(None));
    assert_eq!(parser.next_expr(), Ok(None));
    assert_eq!(parser.bytes_read(), text.len() as u64);

    let mut parser = Parser::new("x ; trailing\n\n".as_bytes());
    parser.next_expr().unwrap().unwrap();
    assert_eq!((parser.bytes_read(), parser.last_complete()), (1, at(1, 2)));
    assert_eq!(parser.next_expr(), Ok(None));
    assert_eq!((parser.bytes_read(), parser.last_complete()), (14, at(1, 2)));

    let mut parser = Parser::new("(a)\n(b".as_bytes());
    assert!(parser.next_expr().unwrap().is_some());
    assert!(parser.next_expr().is_err());
    assert_eq!(parser.last_complete(), at(1, 4));
}

#[test]
fn iterator() {
    let all: Vec<_> = Parser::new("a (b) \"c\"".as_bytes()).map(|r| show(&r.unwrap())).collect();
    assert_eq!(all, ["a", "(b)", "\"c\""]);
    let all: Vec<_> = Parser::new("a ) b".as_bytes()).collect();
    assert_eq!(all.len(), 2);
    assert!(all[1].is_err());
    assert_eq!(parse_str("").unwrap(), []);
    assert_eq!(parse_str(" \t\r\n\x0c").unwrap(), []);
}

/// Gives `data` a few bytes at a time, failing or being interrupted on the way.
struct Flaky {
    data: Vec<u8>,
    at: usize,
    fail_at: Option<usize>,
    interrupted: bool,
}

impl Read for Flaky {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.fail_at == Some(self.at) {
            return Err(io::Error::other("disk on fire"));
        }
        self.interrupted = !self.interrupted;
        if self.interrupted {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(3).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn read_errors() {
    let flaky = |fail_at| BufReader::with_capacity(2, Flaky { data: b"(a b) (c d)".to_vec(), at: 0, fail_at, interrupted: false });
    assert_eq!(Parser::new(flaky(None)).count(), 2);
    let mut parser = Parser::new(flaky(Some(6)));
    assert!(parser.next_expr().unwrap().is_some());
    let e = parser.next_expr().unwrap_err();
    assert!(e.message.contains("cannot read input: disk on fire"), "{e}");
    assert_eq!((e.line, e.col), (1, 7));
}

#[test]
fn random_bytes_never_panic() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"()()\"\"';#|\\ \n\r\tax1.-+e;\x82\xC3\xE2";
    for round in 0..4000 {
        let len = (next() % 48) as usize;
        let input: Vec<u8> = if round % 4 == 0 {
            // Mutations of real text reach deeper than noise.
            let mut text = EXAMPLE.as_bytes()[..(next() as usize % EXAMPLE.len())].to_vec();
            for _ in 0..=len % 4 {
                if !text.is_empty() {
                    let i = next() as usize % text.len();
                    text[i] = next() as u8;
                }
            }
            text
        } else {
            (0..len)
                .map(|_| {
                    let r = next();
                    if r % 8 == 0 {
                        r as u8
                    } else {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    }
                })
                .collect()
        };
        assert_chunking_invariant(&input);
        if let Ok(text) = std::str::from_utf8(&input) {
            let _ = parse_str(text);
        }
    }
}
