import ReactorHubLogging

/// The logger handed to servers under test.
let transportTestLogger: Logger = {
    var logger = Logger(label: "transport-test")
    logger.logLevel = .warning
    return logger
}()
