import Foundation

/// The poll kind's settings, `reactors.poll` in the configuration file.
public struct PollSettings: Codable, Sendable, Equatable {
    /// The most options a poll may have.
    public var maxOptions = 8
    /// How long tallying takes in the live announcer (a stand-in for real work).
    public var tallyMs = 300

    public init() {}
}
