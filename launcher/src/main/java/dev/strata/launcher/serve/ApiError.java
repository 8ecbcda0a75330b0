package dev.strata.launcher.serve;

/**
 * An answer other than 200, with the OpenAI error body {@code {"error": {"message", "type",
 * "param", "code"}}}: {@code param} names the request field at fault (null when none is).
 */
public final class ApiError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String type;
  private final String param;
  private final String code;

  ApiError(int status, String type, String param, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }

  /** 400, {@code invalid_request_error}, naming {@code param}. */
  static ApiError invalid(String param, String message) {
    return new ApiError(400, "invalid_request_error", param, null, message);
  }

  /** 400 with an OpenAI error code (e.g. {@code context_length_exceeded}). */
  static ApiError invalid(String param, String code, String message) {
    return new ApiError(400, "invalid_request_error", param, code, message);
  }

  int status() {
    return status;
  }

  String type() {
    return type;
  }

  String param() {
    return param;
  }

  String code() {
    return code;
  }
}
