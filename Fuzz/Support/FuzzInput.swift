/// The bytes libFuzzer hands to one run, with the few ways the targets cut them up.
public struct FuzzInput {
    /// The whole input.
    public let bytes: UnsafeRawBufferPointer

    /// Wraps the arguments of `LLVMFuzzerTestOneInput`.
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    /// The input as an array.
    public var array: [UInt8] { Array(bytes) }

    /// The input as text when it is valid UTF-8.
    public var text: String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The part before the first `separator` and the part after it; `nil` without one.
    ///
    /// The two-part targets (a document and a patch, a header and a payload) use a newline:
    /// the seeds are compact JSON, one part per line, so a crashing input reads as it is.
    public func split(at separator: UInt8 = UInt8(ascii: "\n")) -> (head: [UInt8], tail: [UInt8])? {
        guard let index = bytes.firstIndex(of: separator) else { return nil }
        return (Array(bytes[..<index]), Array(bytes[(index + 1)...]))
    }

    /// The first byte, which some targets use to choose what to do with the rest, and the rest.
    public var selector: (mode: UInt8, rest: UnsafeRawBufferPointer)? {
        guard let first = bytes.first else { return nil }
        return (first, UnsafeRawBufferPointer(rebasing: bytes[1...]))
    }
}
