/// One header of an HTTP response the server writes; the name is lowercase with its
/// colon, as libwebsockets' `lws_add_http_header_by_name` takes it.
struct HTTPHeader: Equatable {
    var name: String
    var value: String
}
