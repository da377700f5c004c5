/// A coding key made from any string or integer, used for object members and array
/// positions in coding paths.
public struct JSONCodingKey: CodingKey, Sendable, Hashable {
    /// The member name, or the decimal index for an array position.
    public let stringValue: String
    /// The array position, when the key designates one.
    public let intValue: Int?

    /// A key for an object member.
    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    /// A key for an array position.
    public init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension JSONValue: Codable {
    /// Encodes the value with any encoder; `JSONValueEncoder` inserts it as it is.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values {
                try container.encode(value)
            }
        case .object(let object):
            try object.encode(to: encoder)
        }
    }

    /// Decodes any JSON value; with decoders that do not keep the distinction (such as
    /// Foundation's), a number that fits an `Int` becomes `.int`.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? ValueDecoder {
            self = decoder.value
            return
        }
        if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
            self = .object(try JSONObject(container: container))
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            if let count = container.count { values.reserveCapacity(count) }
            while !container.isAtEnd {
                values.append(try container.decode(JSONValue.self))
            }
            self = .array(values)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

extension JSONObject: Codable {
    /// Encodes the members in order with any encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONCodingKey.self)
        for (key, value) in self {
            try container.encode(value, forKey: JSONCodingKey(stringValue: key))
        }
    }

    /// Decodes an object with any decoder.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? ValueDecoder {
            guard case .object(let object) = decoder.value else {
                throw decoder.typeMismatch(JSONObject.self, expected: "an object")
            }
            self = object
            return
        }
        self = try JSONObject(container: decoder.container(keyedBy: JSONCodingKey.self))
    }

    fileprivate init(container: KeyedDecodingContainer<JSONCodingKey>) throws {
        self.init(minimumCapacity: container.allKeys.count)
        for key in container.allKeys {
            updateValue(try container.decode(JSONValue.self, forKey: key), forKey: key.stringValue)
        }
    }
}
