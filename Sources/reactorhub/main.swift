import Daemon
import Foundation

let status = await Daemon.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    environment: ProcessInfo.processInfo.environment
)
exit(status)
