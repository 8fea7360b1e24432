# Install rules: headers, the library, a CMake package config and a pkg-config file.
