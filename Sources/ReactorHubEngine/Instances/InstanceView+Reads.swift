package import ReactorHubProtocol
import ReactorHubJSON

/// What the HTTP API reads of a view (API.md): the committed state, and the patches after
/// a version while the history still holds them.
extension InstanceView {
    /// Reads the committed state as compact JSON (written once per version, as snapshots
    /// share it).
    package func read() -> InstanceReading {
        contents.withLock { contents in
            if contents.stateText == nil {
                var writer = JSONWriter()
                writer.writeValue(contents.state)
                contents.stateText = writer.bytes
            }
            return InstanceReading(epoch: contents.epoch, version: contents.version, state: contents.stateText ?? [])
        }
    }

    /// The frames after `since`, as a resume would send them, or nil when the epoch differs
    /// or the history no longer reaches back (or `since` is ahead); with the position held.
    package func missed(since: ClientMessage.ResumePoint) -> MissedPatches {
        contents.withLock { contents in
            var frames: [PatchFrame]?
            if !contents.stale, since.epoch == contents.epoch, since.version <= contents.version {
                frames = contents.history.frames(after: since.version, current: contents.version)
            }
            return MissedPatches(epoch: contents.epoch, version: contents.version, frames: frames)
        }
    }
}

/// An instance's committed state at one version.
package struct InstanceReading: Sendable {
    package var epoch: String
    package var version: Int
    /// The state's compact JSON.
    package var state: [UInt8]
}

/// The answer to "what changed since": the position now, and the frames after the asked
/// version (nil when they cannot be given).
package struct MissedPatches: Sendable {
    package var epoch: String
    package var version: Int
    package var frames: [PatchFrame]?
}
