//! The [`Shape`] of the transcript table: what a reader expects at each place of a line, which
//! the tests build lines from (every key, at its place, with values of its type or of another).
//! Each type of the table says its own ([`Shaped`]; the `table!` macro writes a struct's).
//! Compiled for the tests only (the `test-support` feature).

use std::borrow::Cow;

use crate::lenient::Field;

/// What the table expects at one place of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A string.
    Text,
    /// `true` or `false`.
    Flag,
    /// A whole number of at least 0.
    Count,
    /// An object of these keys (any other key is skipped unread).
    Object(Vec<(&'static str, Shape)>),
    /// An array of elements of this shape.
    Array(Box<Shape>),
    /// A string, or an array of elements of this shape.
    TextOrArray(Box<Shape>),
}

impl Shape {
    /// Every key of the shape at any depth, each once, sorted.
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        self.collect_keys(&mut keys);
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    fn collect_keys(&self, keys: &mut Vec<&'static str>) {
        match self {
            Self::Text | Self::Flag | Self::Count => {}
            Self::Object(fields) => {
                for (key, shape) in fields {
                    keys.push(key);
                    shape.collect_keys(keys);
                }
            }
            Self::Array(element) | Self::TextOrArray(element) => element.collect_keys(keys),
        }
    }
}

/// A type of the table, as the [`Shape`] of the JSON it reads.
pub trait Shaped {
    /// What this type reads.
    fn shape() -> Shape;
}

impl<T: Shaped> Shaped for Field<T> {
    fn shape() -> Shape {
        T::shape()
    }
}

impl<T: Shaped> Shaped for Box<T> {
    fn shape() -> Shape {
        T::shape()
    }
}

impl Shaped for Cow<'_, str> {
    fn shape() -> Shape {
        Shape::Text
    }
}

impl Shaped for bool {
    fn shape() -> Shape {
        Shape::Flag
    }
}

impl Shaped for u64 {
    fn shape() -> Shape {
        Shape::Count
    }
}
