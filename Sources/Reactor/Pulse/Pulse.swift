/// A state property whose every assignment is an event, even of an equal value: an alert to show
/// once, a toast, a navigation. As in ReactorKit, `runtime.pulse(\.$alertMessage)` emits whenever
/// `valueUpdatedCount` changes.
@propertyWrapper
public struct Pulse<Value> {
    /// The last value assigned; every assignment counts as a new pulse.
    public var value: Value {
        didSet {
            valueUpdatedCount &+= 1
        }
    }

    /// How many times `value` was assigned; wraps to zero after `UInt.max`.
    public internal(set) var valueUpdatedCount: UInt = 0

    /// Creates a pulse that has not fired yet.
    public init(wrappedValue: Value) {
        self.value = wrappedValue
    }

    /// The value, read and assigned as the property itself.
    public var wrappedValue: Value {
        get { value }
        set { value = newValue }
    }

    /// The pulse itself, so that `\.$alertMessage` names it.
    public var projectedValue: Pulse<Value> {
        self
    }
}

extension Pulse: Sendable where Value: Sendable {}

/// Two pulses are equal when they hold equal values and have fired the same number of times,
/// so a state in which a pulse fired again differs from the state before.
extension Pulse: Equatable where Value: Equatable {}

extension Pulse: Hashable where Value: Hashable {}
