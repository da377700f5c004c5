/// Lists the cases of a coding-key type that is a payload-free enum, such as the
/// `CodingKeys` the compiler synthesizes for an enum's `Codable` conformance.
///
/// Without macros or `CaseIterable` the cases are read from the enum's layout: a
/// payload-free enum with 2 to 255 cases is one byte whose values 0, 1, 2, … are its cases
/// in declaration order, and `Optional` stores `nil` in the first unused value, so
/// loading `Optional<Key>` from each byte value yields the cases until the first `nil`.
/// A one-case enum has no bytes at all. Each step is guarded by a layout check, and any
/// other kind of key type gives `nil` (the caller then describes nothing) rather than a
/// guess.
enum CodingKeyCases {
    /// The cases in declaration order, or `nil` when the type is not a payload-free enum
    /// of at most 255 cases.
    static func all<Key: CodingKey>(of type: Key.Type) -> [Key]? {
        switch MemoryLayout<Key>.size {
        case 0:
            // Zero bytes: one case, or none (an uninhabited enum, which must not be
            // loaded); only the enum's metadata tells the two apart.
            guard MemoryLayout<Key?>.size == 1, EnumMetadata.caseCount(of: Key.self) == 1 else { return nil }
            let only = withUnsafeBytes(of: UInt8(0)) { $0.load(as: Key.self) }
            return [only]
        case 1:
            guard MemoryLayout<Key?>.size == 1 else { return nil }
            var cases: [Key] = []
            for tag in UInt8.min...UInt8.max {
                let candidate = withUnsafeBytes(of: tag) { $0.load(as: Key?.self) }
                guard let key = candidate else { return cases }
                cases.append(key)
            }
            return nil
        default:
            return nil
        }
    }
}

/// Reads the case count of an enum from its runtime metadata.
///
/// Used only to tell a one-case enum from an uninhabited one, which have the same
/// layout. The fields read (metadata kind, the descriptor pointer after it, and the
/// descriptor's case counts) are part of the Swift runtime ABI; any type that is not a
/// plain enum gives `nil`.
enum EnumMetadata {
    /// `MetadataKind::Enum`: 1 | the "non-heap" flag 0x200.
    private static let enumKind: UInt = 0x201

    static func caseCount(of type: Any.Type) -> Int? {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard metadata.load(as: UInt.self) == enumKind else { return nil }
        let descriptor = metadata.load(fromByteOffset: MemoryLayout<UInt>.size, as: UnsafeRawPointer.self)
        // TargetEnumDescriptor: flags, parent, name, access function, fields (5 × 4 bytes),
        // then NumPayloadCasesAndPayloadSizeOffset and NumEmptyCases.
        let payloadCases = descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF
        let emptyCases = descriptor.load(fromByteOffset: 24, as: UInt32.self)
        return Int(payloadCases) + Int(emptyCases)
    }
}
