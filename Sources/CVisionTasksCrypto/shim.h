// OpenSSL's libcrypto (Debian's libssl-dev): its EVP digest interface, for SHA-256 (VisionTasksModelFormat's SHA256).
#include <openssl/evp.h>
