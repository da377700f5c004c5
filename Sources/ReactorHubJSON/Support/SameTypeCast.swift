/// Reinterprets `value` as `Target`, for generic code that has already checked that the
/// two types are the same (`Value.self == JSONValue.self`).
///
/// `unsafeBitCast` must not be used there: on a generic, reference-counted value it does
/// not balance retains, and every member of an encoded document leaked. Reading through a
/// pointer copies the value with its reference counts right.
@inline(__always)
func sameTypeCast<Source, Target>(_ value: Source, to _: Target.Type) -> Target {
    precondition(Source.self == Target.self)
    return withUnsafePointer(to: value) { UnsafeRawPointer($0).assumingMemoryBound(to: Target.self).pointee }
}
